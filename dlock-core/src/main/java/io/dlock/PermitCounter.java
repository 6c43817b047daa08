package io.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * What every semaphore of dlock has: a named count of permits in Redis that can be set up, changed, read and deleted.
 * {@link DistributedSemaphore} (permits without owners, Redisson's {@code RSemaphore}) and {@link LeasedSemaphore}
 * (permits with ids and leases, Redisson's {@code RPermitExpirableSemaphore}) extend it and say what their count is;
 * code that only sizes or watches a semaphore can take either as a {@code PermitCounter}. How permits are taken and
 * given back differs between the two and is not part of this interface.
 *
 * <p><b>Thread-safety.</b> Instances are thread-safe, keep nothing but the name, and are cheap.
 *
 * <p><b>Errors.</b> A bad argument throws {@link IllegalArgumentException} naming the parameter; a key of another
 * type (or a string that is not a count) fails with {@link NotALockException} naming the semaphore and is left as it
 * was; a Redis failure throws {@link LockException} naming the semaphore, within about the command timeout. The async
 * forms complete exceptionally with the same exceptions instead.
 */
public interface PermitCounter {

    /** @return the semaphore's name: the Redis key of its count */
    String getName();

    /**
     * Sets the count of available permits to {@code permits} if the semaphore has none yet (its count key does not
     * exist; an existing count of 0 counts as set), and wakes waiters.
     *
     * @param permits the initial count, {@code >= 0}
     * @return whether the count was set
     */
    @Blocking
    boolean trySetPermits(int permits);

    /** Async {@link #trySetPermits(int)}. */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits);

    /**
     * As {@link #trySetPermits(int)}, giving the count a TTL: the semaphore disappears {@code ttl} after it was set,
     * whatever happens to it meanwhile (every later change keeps that TTL).
     *
     * @param permits the initial count, {@code >= 0}
     * @param ttl     the time to live, at least one millisecond
     * @return whether the count was set
     */
    @Blocking
    boolean trySetPermits(int permits, Duration ttl);

    /** Async {@link #trySetPermits(int, Duration)}. */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl);

    /**
     * Sets the number of permits whatever it was, keeping the count's TTL, and wakes waiters if permits are available
     * then. What the number counts depends on the kind: the available permits of a {@link DistributedSemaphore}, the
     * available plus the acquired ones of a {@link LeasedSemaphore}.
     *
     * @param permits the new number (see each kind for its bounds)
     */
    @Blocking
    void setPermits(int permits);

    /** Async {@link #setPermits(int)}. */
    CompletableFuture<Void> setPermitsAsync(int permits);

    /**
     * Changes the count of available permits by {@code delta}, keeping its TTL; a negative delta may take it below
     * zero (acquisitions then wait until releases bring it back above what they ask for).
     *
     * @param delta any value but 0
     */
    @Blocking
    void addPermits(int delta);

    /** Async {@link #addPermits(int)}. */
    CompletableFuture<Void> addPermitsAsync(int delta);

    /** @return the permits that can be taken now (may be negative; 0 when the semaphore was never set) */
    @Blocking
    int availablePermits();

    /** Async {@link #availablePermits()}. */
    CompletableFuture<Integer> availablePermitsAsync();

    /**
     * Deletes the semaphore from Redis: its count, and whatever else its kind keeps there. Permits taken are gone
     * with it (see each kind for what their holders then see).
     *
     * @return whether anything existed
     */
    @Blocking
    boolean delete();

    /** Async {@link #delete()}. */
    CompletableFuture<Boolean> deleteAsync();
}
