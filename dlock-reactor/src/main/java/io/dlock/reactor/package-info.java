/**
 * dlock for Project Reactor: the locks, semaphores and count-down latch of {@code io.dlock} with {@code Mono}- and
 * {@code Flux}-returning methods, Redisson's {@code RLockReactive} family on dlock. Start at
 * {@link io.dlock.reactor.ReactiveLockClient#of(io.dlock.LockClient)}.
 *
 * <p>The rules every type of the package keeps:
 * <ul>
 *   <li><b>The holder is the subscription.</b> Each subscription to an acquiring Mono acquires anew, for a
 *       {@link io.dlock.LockClient#newOwner() new owner} of its own (never a thread), so a pipeline may hop threads
 *       freely and two subscriptions exclude each other.</li>
 *   <li><b>Cancellation leaves nothing held.</b> A cancelled acquisition abandons its wait; whatever an attempt in
 *       flight takes, or a grant that raced the cancel, is given back. Once a hold or permit was emitted it belongs to
 *       the subscriber, who releases it.</li>
 *   <li><b>{@code withLock}, {@code using}, {@code withPermits}, {@code withPermit}</b> hold exactly while the inner
 *       publisher (the work) runs and release on its completion, error and cancellation (one operator,
 *       {@code Holding}, also behind dlock-spring's annotations on {@code Mono} and {@code Flux} methods; not
 *       {@code Flux.usingWhen}, which can lose a cancel that crosses the grant).</li>
 *   <li><b>A cancel stops the work before the hold ends.</b> A cancel ({@code dispose()}, {@code timeout},
 *       {@code take(n)}, a {@code switchMap} switch) reaches the work first; the hold or permits are given back once
 *       it has returned from the work, so the work's synchronous cancel path has ended before another holder can get
 *       in. A cancel that comes before the work began never calls it and leaves nothing held.</li>
 *   <li><b>A lost hold stops the work and fails the Flux.</b> A hold or leased permit the client finds lost while
 *       the work runs (another client's {@code forceUnlock}, a deleted key, a restart without persistence, a lease
 *       that ran out) cancels the work, and then the Flux fails with {@link io.dlock.LockLostException}: the
 *       reactive form of {@link io.dlock.LockClient#addLeaseLostListener}, found at the next renewal.</li>
 *   <li><b>Nothing blocks.</b> No method blocks its caller or a subscriber's thread; signals are emitted on the
 *       client's executor, never on a Redis I/O thread. The test suite runs every path under BlockHound.</li>
 *   <li><b>Errors.</b> Every argument rule is applied when the Mono is made: null arguments, bad waits, leases,
 *       TTLs, permit counts, counts and deltas, and blank names are thrown then
 *       ({@link java.lang.NullPointerException}, {@link java.lang.IllegalArgumentException}), naming the object and
 *       the parameter. Redis failures are {@link io.dlock.LockException} error signals, as the core's asynchronous
 *       methods report them.</li>
 * </ul>
 */
package io.dlock.reactor;
