package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.function.Function;

/**
 * A distributed lock for Reactor pipelines: the plain, fair or fenced lock, one side of a read-write lock, or a
 * multi-lock, from {@link ReactiveLockClient}. The reactive counterpart of {@link DistributedLock} (and of Redisson's
 * {@code RLockReactive}), with one difference that matters: <b>the holder is the subscription, not a thread</b>.
 *
 * <ul>
 *   <li><b>Lazy, one owner per subscription.</b> Nothing is sent before a subscription. Each subscription to
 *       {@link #lock()} or {@link #tryLock()} acquires for a {@link LockClient#newOwner() new owner} of its own, so a
 *       Mono subscribed twice acquires twice, and the two subscriptions exclude each other as two clients do (the
 *       lock is not reentrant across subscriptions). The hold is the emitted {@link ReactiveHold}; release it with
 *       {@link ReactiveHold#unlock()}, or let {@link #withLock(Function)} do it.</li>
 *   <li><b>Cancellation.</b> Cancelling a subscription that waits abandons the wait and leaves nothing held: a grant
 *       that races the cancel is given back, and what an attempt whose reply never came may have taken is dropped
 *       (the core's lost-reply rule). Cancelling after the hold was emitted does not release it: the hold belongs to
 *       whoever received it. A cancel that crosses the emission is the subscriber's to settle (Reactor's own
 *       operators may drop a value that arrives after their cancel); {@link #withLock(Function)} and
 *       {@link #using(Mono, Function)} settle it, releasing on every path, and release only after a cancel has gone
 *       through their work.</li>
 *   <li><b>Never blocks.</b> No method blocks the calling thread or a subscriber's thread; signals are emitted on
 *       the client's executor ({@link io.dlock.LockClientConfig.Builder#executor}), never on a Redis I/O thread.
 *       Use {@code publishOn} to continue elsewhere.</li>
 *   <li><b>Errors.</b> Bad arguments are thrown when the Mono is made ({@link NullPointerException},
 *       {@link IllegalArgumentException} naming the lock and the parameter). Redis failures are error signals:
 *       {@link io.dlock.LockException} (or a subclass) as the core's async twin of the method completes with; an
 *       acquisition without a wait limit keeps trying while Redis is unavailable, as {@link DistributedLock#lock()}
 *       does.</li>
 *   <li><b>Units.</b> {@link Duration}s, rounded down to milliseconds. A wait of zero is one attempt; a wait longer than
 *       {@link DistributedLock#MAX_LEASE} waits without limit. A lease is from 1 ms to {@code MAX_LEASE}; the
 *       methods without one take a watchdog lease, renewed while the hold lasts and the client is open.</li>
 * </ul>
 *
 * <p>Thread-safe and cheap; keeps nothing but the core lock object and its name.
 */
public final class ReactiveLock {
    private static final String KIND = "lock";

    private final LockClient client;
    private final LockTarget target;
    private final DistributedLock lock;

    ReactiveLock(LockClient client, LockTarget target) {
        this.client = client;
        this.target = target;
        this.lock = target.lock();
    }

    /** @return the lock's name ({@link DistributedLock#getName()}); for a multi-lock a description, not a Redis key */
    public String getName() {
        return lock.getName();
    }

    /** The core lock behind this one (acting for the calling thread), for {@link ReactiveLockClient#getMultiLock}. */
    DistributedLock core() {
        return lock;
    }

    /**
     * Acquires the lock with a watchdog lease, waiting as long as it takes ({@link DistributedLock#lockAsync()}).
     *
     * @return emits the hold once acquired; fails with {@link io.dlock.LockException} on a Redis failure that Redis
     *         will not get over (a wrong key type, a script error) or when the client closes
     */
    public Mono<ReactiveHold> lock() {
        return acquire(DistributedLock.WAIT_FOREVER, DistributedLock.LEASE_WATCHDOG);
    }

    /**
     * Acquires the lock with a fixed lease, waiting as long as it takes ({@link DistributedLock#lock(Duration)}).
     *
     * @param lease how long the hold lasts unless released first, from 1 ms to {@link DistributedLock#MAX_LEASE}
     * @return as {@link #lock()}
     * @throws NullPointerException     when {@code lease} is null
     * @throws IllegalArgumentException when it is out of range
     */
    public Mono<ReactiveHold> lock(Duration lease) {
        return acquire(DistributedLock.WAIT_FOREVER, leaseMillis(lease));
    }

    /**
     * One attempt, with a watchdog lease ({@link DistributedLock#tryLock()}).
     *
     * @return emits the hold, or completes empty when the lock is held by another owner; fails with
     *         {@link io.dlock.LockException} when Redis fails
     */
    public Mono<ReactiveHold> tryLock() {
        return acquire(0, DistributedLock.LEASE_WATCHDOG);
    }

    /**
     * Waits at most {@code wait} for the lock, with a watchdog lease ({@link DistributedLock#tryLock(Duration)}).
     *
     * @param wait how long to wait: zero is one attempt, longer than {@link DistributedLock#MAX_LEASE} is no limit
     * @return emits the hold, or completes empty when the wait ran out, also when it ran out with Redis's answer still
     *         on its way while Redis is healthy (a slow answer is a "no": a late grant is given back; the rule of
     *         {@link DistributedLock}'s timed waits); fails with {@link io.dlock.LockException} when Redis fails or is
     *         unavailable (connection down, or no answer for a command timeout)
     * @throws NullPointerException     when {@code wait} is null
     * @throws IllegalArgumentException when it is negative
     */
    public Mono<ReactiveHold> tryLock(Duration wait) {
        return acquire(waitMillis(wait), DistributedLock.LEASE_WATCHDOG);
    }

    /**
     * Waits at most {@code wait} for the lock, then holds it for {@code lease} unless released first
     * ({@link DistributedLock#tryLock(Duration, Duration)}).
     *
     * @return as {@link #tryLock(Duration)}
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code wait} is negative or {@code lease} out of range
     */
    public Mono<ReactiveHold> tryLock(Duration wait, Duration lease) {
        return acquire(waitMillis(wait), leaseMillis(lease));
    }

    /**
     * Holds the lock exactly while the publisher that {@code work} returns runs: subscribing acquires (as
     * {@link #lock()}, for a new owner), then subscribes to the work; the lock is released when the work completes,
     * fails or is cancelled, and the returned Flux terminates after the release. A cancel while waiting for the lock
     * leaves nothing held and never calls {@code work}.
     *
     * <p><b>A cancel stops the work before the hold ends.</b> A cancel of the returned Flux ({@code dispose()},
     * {@code timeout}, {@code take(n)}, a {@code switchMap} switch) goes to the work first, and the lock is released
     * only once that cancel has returned from the work: what the work's cancel path does on the cancelling thread
     * ({@code doOnCancel}, {@code doFinally}, cancelling a call in flight) has ended before another owner can get in.
     * Clean-up the work hands to another thread is not waited for (a cancel has no completion signal). Unlike
     * {@code Flux.usingWhen}, whose cancel hook runs beside the cancel of the work.
     *
     * <p><b>A lost hold fails the Flux.</b> When the client finds the hold gone while the work runs (another client's
     * {@code forceUnlock}, the key deleted, Redis restarted without it, renewals failing until the lease ran out, the
     * client closed), the work is cancelled first, then the Flux fails with {@link io.dlock.LockLostException}
     * naming the lock: the reactive form of {@link LockClient#addLeaseLostListener}. The client finds a loss at its
     * next renewal, every third of the watchdog timeout.
     *
     * <p>A failed release is the Flux's error after a completed work (the hold then ends with its lease), and is
     * added to the work's own error as suppressed; after a cancel nobody hears of it but Reactor's dropped-error hook.
     *
     * @param work the work to run under the lock, given the hold (its token for a fenced lock); called once per
     *             subscription, after the lock is held
     * @return the work's signals
     * @throws NullPointerException when {@code work} is null
     */
    public <T> Flux<T> withLock(Function<? super ReactiveHold, ? extends Publisher<T>> work) {
        return using(lock(), work);
    }

    /**
     * {@link #withLock(Function)} with a fixed lease, which bounds the work: when the lease runs out before the work
     * ends, the hold is lost, so the work is cancelled and the Flux fails with {@link io.dlock.LockLostException}
     * (the client counts the lease out a little before Redis does — 1% of it and 2 ms, from when the request was sent —
     * so the work is cancelled before another owner can get in while the client's timer and executor keep up within
     * that margin and the clocks do not drift apart by more; on a loaded host the cancel may come some milliseconds
     * later, see {@link io.dlock.LeaseLostListener}).
     *
     * @throws NullPointerException     when an argument is null
     * @throws IllegalArgumentException when {@code lease} is out of range
     */
    public <T> Flux<T> withLock(Duration lease, Function<? super ReactiveHold, ? extends Publisher<T>> work) {
        return using(lock(lease), work);
    }

    /**
     * The work of {@link #withLock(Function)} over any acquisition of this package's locks, such as
     * {@code tryLock(wait)}, with its rules for a cancel and a lost hold: when the acquisition completes empty, the
     * work is not run and the Flux completes empty.
     *
     * @throws NullPointerException when an argument is null
     */
    public static <T> Flux<T> using(Mono<ReactiveHold> acquisition,
                                    Function<? super ReactiveHold, ? extends Publisher<T>> work) {
        Checks.notNull(acquisition, "acquisition");
        Checks.notNull(work, "work");
        return Holding.using(acquisition, work, ReactiveHold::unlock, ReactiveHold::giveBack, ReactiveHold::lost);
    }

    /** @return emits whether any owner of any client holds the lock ({@link DistributedLock#isLocked()}) */
    public Mono<Boolean> isLocked() {
        return Grants.call(lock::isLockedAsync);
    }

    /**
     * @return emits the lock's remaining time to live in ms, {@link DistributedLock#TTL_NOT_LOCKED} or
     *         {@link DistributedLock#TTL_NO_EXPIRY} ({@link DistributedLock#remainTimeToLive()})
     */
    public Mono<Long> remainTimeToLive() {
        return Grants.call(lock::remainTimeToLiveAsync);
    }

    /**
     * Releases the lock whoever holds it ({@link DistributedLock#forceUnlock()}).
     *
     * @return emits true when something was released
     */
    public Mono<Boolean> forceUnlock() {
        return Grants.call(lock::forceUnlockAsync);
    }

    /**
     * A read-only snapshot of the lock in Redis: its holders, their counts, fair-lock waiters and TTL
     * ({@link LockClient#inspect(String)}); for a side of a read-write lock, the whole read-write lock.
     *
     * @return emits the snapshot; fails with {@link io.dlock.NotALockException} when the key holds something else,
     *         with {@link UnsupportedOperationException} for a multi-lock (inspect its members)
     */
    public Mono<LockInfo> inspect() {
        return target.inspect(client);
    }

    private Mono<ReactiveHold> acquire(long waitMs, long leaseMs) {
        return Grants.acquire(() -> target.start(client, client.newOwner(), waitMs, leaseMs), ReactiveHold::giveBack);
    }

    private long waitMillis(Duration wait) {
        return io.dlock.Leases.waitMillis(KIND + " '" + getName() + "'", "waitTime", wait);
    }

    private long leaseMillis(Duration lease) {
        return Checks.lease(KIND, getName(), "leaseTime", lease).toMillis();
    }

    @Override
    public String toString() {
        return "ReactiveLock[" + getName() + "]";
    }
}
