package io.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore shared by every JVM that talks to the same Redis, with the semantics of
 * {@link java.util.concurrent.Semaphore} (not fair): permits are taken and given back by anybody, in any number,
 * with no owner. Wire-compatible with Redisson's {@code RSemaphore} ({@code getSemaphore}): one key, the semaphore's
 * name, holding the available permits as a decimal integer, and the channel {@code redisson_sc:{NAME}}; dlock and
 * Redisson clients on one name share the permits exactly and wake each other's waiters (docs/protocol.md §13.1).
 *
 * <p><b>No lease.</b> A permit taken here is not tied to its taker: a process that dies holding permits never gives
 * them back (as with Redisson). Where that matters, use {@link LeasedSemaphore}, whose permits expire after a crash.
 *
 * <p><b>Count.</b> A semaphore nobody has set has no permits (a missing key reads 0). The count may go negative
 * through {@link #addPermits(int)} with a negative delta or {@link #setPermits(int)}; acquisitions then wait until
 * releases bring it back above what they ask for.
 *
 * <p><b>Expiry.</b> The key has no TTL unless {@link #trySetPermits(int, Duration)} gave it one; every later change
 * keeps that TTL (Redisson's {@code addPermits} and {@code drainPermits} drop it). A release after the key expired
 * creates it again without a TTL, with the released permits (as Redisson does).
 *
 * <p><b>Waiting.</b> A blocked acquisition waits for a release message on the semaphore's channel, and re-checks
 * Redis at least every {@link #RECHECK_INTERVAL} even without one, so a lost message (a release by a client that does
 * not publish, a reconnect) delays it by at most that long, never for ever.
 *
 * <p><b>Releases within one client.</b> Unlike Redisson, a release by one thread of a client first serves that
 * client's acquisitions that wait for permits its threads hold, in arrival order: the permits pass from one caller to
 * the next (the count stays taken and nothing is published) once Redis answered the release's one call, a read of the
 * count, so a busy client spends one round trip per permit passed on and no refused attempt; with Redis unavailable the
 * release fails as any other call does. An acquisition waits this way only after Redis refused it and while no release to Redis
 * has been heard since, so permits in Redis are never left idle for it. At most
 * {@link TuningSettings#DEFAULT_LOCAL_HANDOFFS} releases in a row are passed on
 * ({@link TuningSettings.Builder#localHandoffs}, 0 = never); the next one goes to Redis and wakes every client's
 * waiters, Redisson's included. When its message woke another client's waiters and this client has had the
 * semaphore's releases to itself for 50 ms, this client's acquisitions hold back for up to 10 ms (until another
 * client's release is heard), so one of those waiters, which must first wake up, wins the permit rather than this
 * client's next waiter, which is awake already: as for locks, a client with busy threads cannot keep permits that
 * others wait for to itself. Accounting is unchanged: every permit is in the count or with a caller, and a permit
 * passed to an acquisition whose caller has gone (cancel, timeout, interrupt, {@code close()}) is released again.
 *
 * <p>The count's set-up, changes, reading and deletion are those of every semaphore ({@link PermitCounter}, shared
 * with {@link LeasedSemaphore}); the name is the count's Redis key.
 *
 * <p><b>Thread-safety.</b> Instances are thread-safe, keep nothing but the name, and are cheap; any number may exist
 * for one name.
 *
 * <p><b>Errors.</b> Permit counts must be positive where a number of permits is taken or given back
 * ({@link IllegalArgumentException} otherwise, naming the parameter). A key that is not a permit count (a hash, a
 * string that is not an integer) fails with {@link NotALockException} naming the semaphore, and is left as it was.
 * Redis failures throw {@link LockException} naming the semaphore; async methods complete exceptionally with it
 * instead. An acquisition takes exactly its permits even when replies are lost (a command timeout during a stall, a
 * broken connection): each attempt is undone by its own id when its reply does not come (docs/protocol.md §13.1),
 * where Redisson's may keep them. A change that would take the count outside a Java {@code int} is refused with
 * {@link IllegalArgumentException}, nothing written.
 *
 * <p><b>Timed waits</b> return by their deadline (plus 20 ms) even while Redis is silent, by the locks' rule
 * (<a href="DistributedLock.html#slow-answer">a slow answer is a "no"</a>): {@code false} when Redis had answered, or
 * when the last attempt is unanswered while Redis is healthy (what it takes late is given back); a
 * {@link LockException} only when Redis is unavailable (connection down, or no answer for a command timeout).
 * {@code close()} waits until what an acquisition in flight took is given back.
 *
 * <p><b>When Redis is unavailable</b> (unreachable, timing out, failing over), acquisitions without a wait limit
 * ({@link #acquire()}, {@link #acquire(int)}, {@link #acquireAsync()}…) keep trying with a growing pause (0.1 s
 * doubling to 2 s) until Redis answers, an interrupt or a cancel ends them, or the client closes, as the locks do; every
 * other call fails with {@link LockException} within about the command timeout.
 */
public interface DistributedSemaphore extends PermitCounter {

    /** The longest a waiting acquisition sleeps without a release message before it asks Redis again. */
    Duration RECHECK_INTERVAL = Duration.ofSeconds(1);

    /**
     * Sets the count of available permits to {@code permits} whatever it was (keeping the key's TTL), and wakes
     * waiters if it is positive.
     *
     * @param permits the new count; may be negative
     */
    @Blocking
    @Override
    void setPermits(int permits);

    /** Async {@link #setPermits(int)}. */
    @Override
    CompletableFuture<Void> setPermitsAsync(int permits);

    /**
     * Takes one permit, waiting as long as it takes.
     *
     * @throws InterruptedException when interrupted while waiting; no permit is then taken (one granted at that moment
     *                              is given back)
     */
    void acquire() throws InterruptedException;

    /** Async {@link #acquire()}: cancelling the future abandons the wait (a permit granted meanwhile is given back). */
    CompletableFuture<Void> acquireAsync();

    /**
     * Takes {@code permits} permits at once (all or none), waiting as long as it takes.
     *
     * @param permits {@code >= 1}
     * @throws InterruptedException when interrupted while waiting; no permit is then taken
     */
    void acquire(int permits) throws InterruptedException;

    /** Async {@link #acquire(int)}. */
    CompletableFuture<Void> acquireAsync(int permits);

    /** Takes one permit if one is available now; one round trip. @return whether it was taken */
    @Blocking
    boolean tryAcquire();

    /** Async {@link #tryAcquire()}. */
    CompletableFuture<Boolean> tryAcquireAsync();

    /**
     * Takes {@code permits} permits if that many are available now; one round trip.
     *
     * @param permits {@code >= 1}
     * @return whether they were taken
     */
    @Blocking
    boolean tryAcquire(int permits);

    /** Async {@link #tryAcquire(int)}. */
    CompletableFuture<Boolean> tryAcquireAsync(int permits);

    /**
     * Takes {@code permits} permits, waiting at most {@code waitTime} for them.
     *
     * @param permits  {@code >= 1}
     * @param waitTime how long to wait, {@link Duration#ZERO} for one attempt; not negative
     * @return whether they were taken; {@code false} also when the wait ended with Redis's answer still on its way
     *         while Redis is healthy (what it takes late is given back; see the class comment)
     * @throws InterruptedException when interrupted while waiting; no permit is then taken
     * @throws LockException        when Redis is unavailable (connection down, or no answer for a command timeout) or
     *                              fails; no permit is then taken
     */
    boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException;

    /**
     * Async {@link #tryAcquire(int, Duration)}: {@code false} for a slow answer, a {@link LockException} only when
     * Redis is unavailable, as there.
     */
    CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime);

    /** Gives one permit back and wakes a waiter. */
    @Blocking
    void release();

    /** Async {@link #release()}. */
    CompletableFuture<Void> releaseAsync();

    /**
     * Gives {@code permits} permits back (no owner is checked: any caller may release any number, as with
     * {@link java.util.concurrent.Semaphore}) and wakes up to that many waiters: first this client's acquisitions that
     * wait in line for them (the count unchanged), then, with what is left, Redis's count and every client's waiters (see
     * "Releases within one client" above).
     *
     * @param permits {@code >= 1}
     */
    @Blocking
    void release(int permits);

    /** Async {@link #release(int)}. */
    CompletableFuture<Void> releaseAsync(int permits);

    /**
     * Sets the count to 0 (keeping the key's TTL) and returns what it was: the permits taken, or a negative count
     * that was cleared. Wakes nobody.
     *
     * @return the count before; 0 when the semaphore was never set
     */
    @Blocking
    int drainPermits();

    /** Async {@link #drainPermits()}. */
    CompletableFuture<Integer> drainPermitsAsync();

    /**
     * Deletes the semaphore's key: the permits are gone, and so are those taken (a later release creates the key
     * again). Waiters keep waiting.
     *
     * @return whether the key existed
     */
    @Blocking
    @Override
    boolean delete();

    /** Async {@link #delete()}. */
    @Override
    CompletableFuture<Boolean> deleteAsync();
}
