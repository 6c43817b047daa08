package io.dlock;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A semaphore whose every acquired permit is a {@link Permit} with an id and a lease, so that the permits of a holder
 * that dies come back by themselves. Wire-compatible with Redisson's {@code RPermitExpirableSemaphore}
 * ({@code getPermitExpirableSemaphore}): the count key {@code NAME}, the permit table {@code {NAME}:timeout} (a
 * sorted set of raw 16-byte ids scored by their expiry in epoch ms) and the channel {@code redisson_sc:{NAME}}
 * (docs/protocol.md §13.2). Permit ids cross clients: a permit taken here can be released by Redisson by its id, and a
 * Redisson permit id can be released here ({@link #release(String)}), one at a time or as a list
 * ({@link #release(Collection)}). The count's set-up, changes, reading and deletion are those of every semaphore
 * ({@link PermitCounter}, shared with {@link DistributedSemaphore}).
 *
 * <p><b>For Redisson users</b>, the counterparts of {@code RPermitExpirableSemaphore}'s methods: {@code acquire},
 * {@code tryAcquire} (one permit, or {@code n} at once: all or none, as a {@code List<Permit>}); {@code release(id)}
 * and {@code tryRelease(id)}; {@code release(ids)} and {@code tryRelease(ids)} (all or none, Redisson 3.41+);
 * {@code updateLeaseTime} is {@link Permit#extendLease(Duration)}. A Redisson permit id is a {@link Permit#id()}.
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
 *       given back at most once: a second {@code release()} of a handle throws {@link IllegalStateException} (nothing
 *       is sent), as a release of an id already released throws here and in Redisson; {@link Permit#close()} after a
 *       release does nothing, and {@link #tryRelease(String)} is the lenient form by id.</li>
 *   <li><b>Expiry kept.</b> A TTL set by {@link #trySetPermits(int, Duration)} is kept by every change and copied to
 *       the permit table, so nothing outlives it.</li>
 * </ul>
 *
 * <p><b>Waiting</b> is as for {@link DistributedSemaphore}: a release message wakes waiters, and a waiter re-checks at
 * least every {@link DistributedSemaphore#RECHECK_INTERVAL}, and at the earliest lease end in the table.
 *
 * <p><b>Releases within one client.</b> As for {@link DistributedSemaphore}, and unlike Redisson, a release of a
 * {@link Permit} by one thread of a client first serves that client's acquisitions of one permit that wait in line for
 * the permits its threads hold, in arrival order. The release's one call hands the permit's place on: the released id
 * leaves the permit table and the waiter's permit enters it under a fresh id of its own, with the waiter's lease (the
 * count stays taken and nothing is published; docs/protocol.md §13.2). The waiter's {@link Permit} is a new permit, so
 * a late {@link #release(String)} of the released id can never free it. When the released id had already gone (its
 * lease ended and another client reclaimed it), nothing changes and the waiter asks Redis itself. With Redis unavailable
 * the release fails as any other call does, and both ids are given back (the waiter, which never got its id, asks
 * Redis). Releases by id ({@link #release(String)}, lists) always go to Redis, as do those of an acquisition of several
 * permits at once. The cap is the same ({@link TuningSettings.Builder#localHandoffs}, 0 = never).
 *
 * <p><b>Thread-safety.</b> Instances are thread-safe and cheap; a {@link Permit} may be released on any thread.
 *
 * <p><b>Errors and outages</b> as for {@link DistributedSemaphore} (acquisitions without a wait limit wait out an
 * outage): bad arguments throw {@link IllegalArgumentException} or
 * {@link NullPointerException} naming the parameter; a key of the wrong type {@link NotALockException}; Redis failures
 * {@link LockException} naming the semaphore. When an attempt's reply is lost, the client gives back the permits it
 * may have taken (it knows the ids it asked for) before it sends anything else, so an acquisition takes exactly its
 * permits however Redis stalls; {@code close()} waits for those give-backs. A timed acquisition returns by its
 * deadline plus 20 ms even while Redis is silent, by the locks' rule (<a href="DistributedLock.html#slow-answer">a
 * slow answer is a "no"</a>): empty when Redis had answered, or when the last attempt is unanswered while Redis is
 * healthy (the permits it takes late are given back); a {@link LockException} only when Redis is unavailable
 * (connection down, or no answer for a command timeout). A name that is one whole hash tag, {@code {x}}, is refused
 * ({@link IllegalArgumentException}): its permit table would be that of {@code x}.
 */
public interface LeasedSemaphore extends PermitCounter {

    /**
     * The most permits one call takes at once, or ids one call releases at once (each is one argument of one script
     * call; Redis holds them all in memory while the script runs).
     */
    int MAX_PERMITS_AT_ONCE = 10_000;

    /**
     * As {@link PermitCounter#trySetPermits(int, Duration)}; the TTL is copied to the permit table at each
     * acquisition, so neither key outlives the other.
     *
     * @param permits the initial count, {@code >= 0}
     * @param ttl     at least one millisecond
     */
    @Blocking
    @Override
    boolean trySetPermits(int permits, Duration ttl);

    /** Async {@link #trySetPermits(int, Duration)}. */
    @Override
    CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl);

    /**
     * Sets the total number of permits, available plus acquired, to {@code permits} (expired ones reclaimed first);
     * the available count becomes {@code permits} minus those acquired, and may be negative.
     *
     * @param permits {@code >= 0}
     */
    @Blocking
    @Override
    void setPermits(int permits);

    /** Async {@link #setPermits(int)}. */
    @Override
    CompletableFuture<Void> setPermitsAsync(int permits);

    // ---- one permit

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
     * Takes one permit with a watchdog lease, waiting at most {@code waitTime}; the same as
     * {@code tryAcquire(waitTime, null)}.
     *
     * @param waitTime how long to wait, {@link Duration#ZERO} for one attempt; not negative
     * @return the permit, or empty when none came in time (also when Redis's answer was still on its way while Redis
     *         is healthy: a permit it grants late is given back)
     * @throws InterruptedException when interrupted while waiting
     * @throws LockException        when Redis is unavailable (connection down, or no answer for a command timeout) or
     *                              fails; no permit is then held
     */
    Optional<Permit> tryAcquire(Duration waitTime) throws InterruptedException;

    /** Async {@link #tryAcquire(Duration)}: empty for a slow answer, a {@link LockException} only when unavailable. */
    CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime);

    /**
     * Takes one permit, waiting at most {@code waitTime}.
     *
     * @param waitTime  how long to wait, {@link Duration#ZERO} for one attempt; not negative
     * @param leaseTime the permit's lease, or null for a watchdog lease
     * @return the permit, or empty when none came in time (also for a slow answer, as {@link #tryAcquire(Duration)})
     * @throws InterruptedException when interrupted while waiting
     * @throws LockException        when Redis is unavailable or fails, as {@link #tryAcquire(Duration)}
     */
    Optional<Permit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Async {@link #tryAcquire(Duration, Duration)}: empty for a slow answer, a {@link LockException} only when
     * unavailable.
     */
    CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime, Duration leaseTime);

    // ---- several permits at once

    /**
     * Takes {@code permits} permits at once, all or none, with watchdog leases, waiting as long as it takes: one
     * script call per attempt takes them all when that many are available, so a waiter for several never holds some
     * while it waits for the rest. Each is a {@link Permit} of its own (its own id, renewed by the watchdog, released
     * on its own or with the others by {@link #release(Collection)}).
     *
     * @param permits from 1 to {@link #MAX_PERMITS_AT_ONCE}
     * @return the permits, {@code permits} of them, each with a distinct id
     * @throws InterruptedException when interrupted while waiting; no permit is then held (those granted at that
     *                              moment are given back)
     */
    List<Permit> acquire(int permits) throws InterruptedException;

    /** Async {@link #acquire(int)}: cancelling the future abandons the wait (permits granted meanwhile go back). */
    CompletableFuture<List<Permit>> acquireAsync(int permits);

    /**
     * As {@link #acquire(int)}, each permit with the fixed lease {@code leaseTime} from when they were granted
     * (together, in one script call).
     *
     * @param permits   from 1 to {@link #MAX_PERMITS_AT_ONCE}
     * @param leaseTime from one millisecond to {@link DistributedLock#MAX_LEASE}
     * @throws InterruptedException when interrupted while waiting; no permit is then held
     */
    List<Permit> acquire(int permits, Duration leaseTime) throws InterruptedException;

    /** Async {@link #acquire(int, Duration)}. */
    CompletableFuture<List<Permit>> acquireAsync(int permits, Duration leaseTime);

    /**
     * Takes {@code permits} permits with watchdog leases if that many are available now (all or none); one round
     * trip.
     *
     * @param permits from 1 to {@link #MAX_PERMITS_AT_ONCE}
     * @return the permits, or an empty list when fewer were available (none is then taken)
     */
    @Blocking
    List<Permit> tryAcquire(int permits);

    /** Async {@link #tryAcquire(int)}. */
    CompletableFuture<List<Permit>> tryAcquireAsync(int permits);

    /**
     * Takes {@code permits} permits at once (all or none), waiting at most {@code waitTime}.
     *
     * @param permits   from 1 to {@link #MAX_PERMITS_AT_ONCE}
     * @param waitTime  how long to wait, {@link Duration#ZERO} for one attempt; not negative
     * @param leaseTime the permits' lease, or null for watchdog leases
     * @return the permits, or an empty list when they did not come in time (none is then taken; also for a slow
     *         answer, as {@link #tryAcquire(Duration)})
     * @throws InterruptedException when interrupted while waiting; no permit is then held
     * @throws LockException        when Redis is unavailable or fails, as {@link #tryAcquire(Duration)}
     */
    List<Permit> tryAcquire(int permits, Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Async {@link #tryAcquire(int, Duration, Duration)}: an empty list for a slow answer, a {@link LockException}
     * only when unavailable.
     */
    CompletableFuture<List<Permit>> tryAcquireAsync(int permits, Duration waitTime, Duration leaseTime);

    // ---- releases by id

    /**
     * Gives back a permit by its id, whoever took it (a Redisson client included). A permit of this client released
     * by id is ended as if released through its handle: no longer renewed, not reported lost, its
     * {@link Permit#release()} then throws {@link IllegalStateException} and its {@link Permit#close()} does nothing.
     * (A permit of another dlock client released so is reported lost there, {@code REMOVED}, at its next renewal.)
     *
     * @param permitId 32 hex digits, as {@link Permit#id()} and Redisson show it (either case)
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

    /**
     * The lenient {@link #release(String)}, as Redisson's {@code tryRelease(id)}: gives back the permit {@code permitId}
     * if the semaphore has it, and answers whether it was held.
     *
     * @param permitId 32 hex digits, either case
     * @return true when the permit was held (its lease still running) and is given back now; false when it was not:
     *         no permit has that id (never acquired, released already, or expired and reclaimed), nothing changed; or
     *         its lease had ended without it being reclaimed yet, and it is given back now (as Redisson does)
     * @throws IllegalArgumentException when {@code permitId} is not 32 hex digits (only then)
     */
    @Blocking
    boolean tryRelease(String permitId);

    /** Async {@link #tryRelease(String)}. */
    CompletableFuture<Boolean> tryReleaseAsync(String permitId);

    /**
     * Gives back several permits by their ids, all or none, in one script call (Redisson 3.41+'s
     * {@code release(ids)}): when every id is held with its lease running, all are given back; otherwise nothing
     * changes and this throws. An empty collection does nothing. Permits of this client among them are ended as by
     * {@link #release(String)}.
     *
     * @param permitIds up to {@link #MAX_PERMITS_AT_ONCE} distinct ids of 32 hex digits (either case)
     * @throws IllegalArgumentException when an id is not 32 hex digits or appears twice (nothing is sent), or when
     *                                  some id is not held: not in the permit table, or its lease has ended; nothing is
     *                                  then given back, not even the others, and the message names the semaphore and
     *                                  those ids
     */
    @Blocking
    void release(Collection<String> permitIds);

    /** Async {@link #release(Collection)}. */
    CompletableFuture<Void> releaseAsync(Collection<String> permitIds);

    /**
     * The lenient {@link #release(Collection)}: all or none, answering instead of throwing when some id is not held.
     *
     * @param permitIds up to {@link #MAX_PERMITS_AT_ONCE} distinct ids of 32 hex digits (either case)
     * @return true when every permit was held with its lease running and all are given back (also for an empty
     *         collection); false when some was not (not in the table, or its lease had ended): nothing changed
     * @throws IllegalArgumentException when an id is not 32 hex digits or appears twice (nothing is sent)
     */
    @Blocking
    boolean tryRelease(Collection<String> permitIds);

    /** Async {@link #tryRelease(Collection)}. */
    CompletableFuture<Boolean> tryReleaseAsync(Collection<String> permitIds);

    // ---- the count

    /** @return the available permits now, after giving back every expired one (so this writes) */
    @Blocking
    @Override
    int availablePermits();

    /** Async {@link #availablePermits()}. */
    @Override
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
    @Override
    boolean delete();

    /** Async {@link #delete()}. */
    @Override
    CompletableFuture<Boolean> deleteAsync();
}
