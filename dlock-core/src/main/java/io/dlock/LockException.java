package io.dlock;

/**
 * Redis failed while working on a lock, or the client cannot work with the Redis it was given: unreachable, timed
 * out, {@code WRONGTYPE} on the lock's key, a script error, a closed client. The message names the lock (where there is
 * one) and the Redis error; the cause is kept. Subclasses name the failures a caller may want to tell apart:
 * {@link ReplicasNotSyncedException}, {@link UnsupportedServerException}, {@link LockLostException},
 * {@link NotALockException}.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The lock this failure concerns, or null (connecting, closing, a failure that concerns no single lock). */
    private final String lockName;

    /** A failure that concerns no single lock. */
    public LockException(String message) {
        this(null, message, null);
    }

    /** A failure that concerns no single lock. */
    public LockException(String message, Throwable cause) {
        this(null, message, cause);
    }

    /**
     * @param lockName the lock the failure concerns, or null
     * @param message  the whole message (it should name the lock itself: {@code lock 'orders': …})
     */
    public LockException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
    }

    /** @return the name of the lock (or other synchronizer) this failure concerns, or null if it concerns none */
    public String lockName() {
        return lockName;
    }
}
