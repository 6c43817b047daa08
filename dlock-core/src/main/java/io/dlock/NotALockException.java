package io.dlock;

/**
 * The key of a lock's name holds something that is not a lock, and was left exactly as it was: a string, a list or
 * any other type, or a hash whose fields are not a lock's (a shopping cart, a Spring Session, a counter). A hash is a
 * lock only when every field is an owner field {@code <client uuid>:<integer>} with an integer hold count, or, for a
 * read-write lock, also the {@code mode} field ({@code read} or {@code write}) and writer fields
 * {@code <client uuid>:<integer>:write}; that is what dlock and Redisson write.
 *
 * <p>The semaphores throw it too, from every operation, when the key of their name is not a permit count (another
 * type, or a string that is not an integer) or a leased semaphore's permit table is not a sorted set; the message then
 * names the semaphore ({@code semaphore 'NAME': …}) and the key's type, and nothing was changed.
 *
 * <p>Thrown by {@link DistributedLock#forceUnlock()} of every lock kind (which checks the key atomically, in the same
 * script that would remove it) and by {@link LockClient#inspect(String)}. The message names the lock and the type of
 * the key, never a field or a value of it. A failure that does not pass by itself: retrying finds the same key.
 */
public class NotALockException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the name whose key is not a lock
     * @param message  the whole message, naming the lock
     * @param cause    the Redis error that reported it, or null
     */
    public NotALockException(String lockName, String message, Throwable cause) {
        super(lockName, message, cause);
    }
}
