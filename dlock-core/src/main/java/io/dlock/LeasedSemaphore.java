package io.dlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore whose every acquired permit is a {@link Permit} with an id and a lease, so that the permits of a holder
 * that dies come back by themselves. Wire-compatible with Redisson's {@code RPermitExpirableSemaphore}
 * ({@code getPermitExpirableSemaphore}): the count key {@code NAME}, the permit table {@code {NAME}:timeout} (a
 * sorted set of raw 16-byte ids scored by their expiry in epoch ms) and the channel {@code redisson_sc:{NAME}}
 * (docs/protocol.md §13.2). Permit ids cross clients: a permit taken here can be released by Redisson by its id, and a
 * Redisson permit id can be released here ({@link #release(String)}).
 *
 * <p><b>Beyond Redisson.</b>
 * <ul>
 *   <li><b>Watchdog.</b> A permit taken without a lease ({@link #acquire()}, {@link #tryAcquire()}) gets the client's
 *       {@link LockClientConfig#watchdogTimeout() watchdog timeout} as its lease and is renewed every third of it
 *       while the client lives and the permit is held, exactly like a lock; after a crash it expires within one
 *       watchdog timeout and comes back to the count. (Redisson has no renewal: a Redisson permit taken without a
 *       lease never expires.)</li>
 *   <li><b>Loss is reported.</b> A permit whose lease ends before its release (a fixed lease that ran out, renewals
 *       that failed, an id released or removed by someone else) is reported once to the client's
 *       {@link LeaseLostListener}s: a {@link LeaseLostEvent} whose {@code lockName} is the semaphore's name and whose
 *       {@code ownerId} is the id of the thread that asked for the permit; {@link Permit#leaseValidFor()} is zero from
 *       then on.</li>
 *   <li><b>One clock.</b> Expiries are written and judged by the Redis server's clock ({@code TIME} inside the
 *       scripts), not by each client's wall clock. Redisson clients on the same name still judge by their own clocks:
 *       a Redisson client whose clock runs ahead of the server's by {@code d} reclaims dlock's permits {@code d} early
 *       (and one running behind reclaims them late); dlock clients judge Redisson's permits by the server's clock.
 *       With clocks kept in step by NTP the difference is milliseconds. See the README.</li>
 *   <li><b>Truthful release.</b> {@link Permit#release()} tells whether the permit was still valid, and a permit is
 *       given back at most once: a second release of a handle does nothing.</li>
 *   <li><b>Expiry kept.</b> A TTL set by {@link #trySetPermits(int, Duration)} is kept by every change and copied to
 *       the permit table, so nothing outlives it.</li>
 * </ul>
 *
 * <p><b>Waiting</b> is as for {@link DistributedSemaphore}: a release message wakes waiters, and a waiter re-checks at
 * least every {@link DistributedSemaphore#RECHECK_INTERVAL}, and at the earliest lease end in the table.
 *
 * <p><b>Thread-safety.</b> Instances are thread-safe and cheap; a {@link Permit} may be released on any thread.
 *
 * <p><b>Errors and outages</b> as for {@link DistributedSemaphore} (acquisitions without a wait limit wait out an
 * outage): bad arguments throw {@link IllegalArgumentException} or
 * {@link NullPointerException} naming the parameter; a key of the wrong type {@link NotALockException}; Redis failures
 * {@link LockException} naming the semaphore. When an acquisition's reply is lost, the client gives back the permit it
 * may have taken (it knows the id it asked for) before failing.
 */
public interface LeasedSemaphore {

    /** @return the semaphore's name, the key of its count */
    String getName();

    /**
     * Sets the count of available permits to {@code permits} if the count key does not exist yet.
     *
     * @param permits {@code >= 0}
     * @return whether it was set
     */
    @Blocking
    boolean trySetPermits(int permits);

    /** Async {@link #trySetPermits(int)}. */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits);

    /**
     * As {@link #trySetPermits(int)}, giving the count a TTL (copied to the permit table at each acquisition).
     *
     * @param ttl at least one millisecond
     */
    @Blocking
    boolean trySetPermits(int permits, Duration ttl);

    /** Async {@link #trySetPermits(int, Duration)}. */
    CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl);

    /**
     * Sets the total number of permits, available plus acquired, to {@code permits} (expired ones reclaimed first);
     * the available count becomes {@code permits} minus those acquired, and may be negative.
     *
     * @param permits {@code >= 0}
     */
    @Blocking
    void setPermits(int permits);

    /** Async {@link #setPermits(int)}. */
    CompletableFuture<Void> setPermitsAsync(int permits);

    /**
     * Changes the available count by {@code delta} (keeping the TTL).
     *
     * @param delta any value but 0
     */
    @Blocking
    void addPermits(int delta);

    /** Async {@link #addPermits(int)}. */
    CompletableFuture<Void> addPermitsAsync(int delta);

    /**
     * Takes one permit with a watchdog lease, waiting as long as it takes.
     *
     * @return the permit; release it (or close it) when done
     * @throws InterruptedException when interrupted while waiting; no permit is then held (one granted at that moment
     *                              is given back)
     */
    Permit acquire() throws InterruptedException;

    /** Async {@link #acquire()}: cancelling the future abandons the wait (a permit granted meanwhile is given back). */
    CompletableFuture<Permit> acquireAsync();

    /**
     * Takes one permit with a fixed lease, waiting as long as it takes. The permit expires {@code leaseTime} after it
     * was granted unless released before.
     *
     * @param leaseTime from one millisecond to {@link DistributedLock#MAX_LEASE}
     * @throws InterruptedException when interrupted while waiting
     */
    Permit acquire(Duration leaseTime) throws InterruptedException;

    /** Async {@link #acquire(Duration)}. */
    CompletableFuture<Permit> acquireAsync(Duration leaseTime);

    /** Takes one permit with a watchdog lease if one is available now; one round trip. */
    @Blocking
    Optional<Permit> tryAcquire();

    /** Async {@link #tryAcquire()}. */
    CompletableFuture<Optional<Permit>> tryAcquireAsync();

    /**
     * Takes one permit, waiting at most {@code waitTime}.
     *
     * @param waitTime  how long to wait, {@link Duration#ZERO} for one attempt; not negative
     * @param leaseTime the permit's lease, or null for a watchdog lease
     * @return the permit, or empty when none came in time
     * @throws InterruptedException when interrupted while waiting
     */
    Optional<Permit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /** Async {@link #tryAcquire(Duration, Duration)}. */
    CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime, Duration leaseTime);

    /**
     * Gives back a permit by its id, whoever took it (a Redisson client included). To release a permit this client
     * holds, prefer {@link Permit#release()}, which also stops its renewal.
     *
     * @param permitId 32 hex digits, as {@link Permit#id()} and Redisson show it
     * @return true when the permit's lease was still running; false when it had ended (the permit was not reclaimed
     *         yet and is given back now)
     * @throws IllegalArgumentException when {@code permitId} is not 32 hex digits, or no permit of this semaphore has
     *                                  that id (never acquired, released already, or expired and reclaimed); the
     *                                  message names the semaphore and the id
     */
    @Blocking
    boolean release(String permitId);

    /** Async {@link #release(String)}. */
    CompletableFuture<Boolean> releaseAsync(String permitId);

    /** @return the available permits now, after giving back every expired one (so this writes) */
    @Blocking
    int availablePermits();

    /** Async {@link #availablePermits()}. */
    CompletableFuture<Integer> availablePermitsAsync();

    /** @return the permits acquired and not expired now (expired ones are given back first) */
    @Blocking
    int acquiredPermits();

    /** Async {@link #acquiredPermits()}. */
    CompletableFuture<Integer> acquiredPermitsAsync();

    /**
     * Deletes the count and the permit table. Permits held are gone: their release answers that they were not
     * valid, and this client's holders hear of the loss through the lease-lost listeners, a watchdog-renewed permit at
     * its next renewal ({@code REMOVED}), one with a fixed lease when that lease ends ({@code EXPIRED}).
     *
     * @return whether either key existed
     */
    @Blocking
    boolean delete();

    /** Async {@link #delete()}. */
    CompletableFuture<Boolean> deleteAsync();
}
