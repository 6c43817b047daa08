package io.dlock;

/**
 * Redis failed while working on a lock: unreachable, timed out, {@code WRONGTYPE} on the lock's key, a script error.
 * The message names the lock and the Redis error; the cause is kept.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
