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
 *   <li><b>{@code withLock}, {@code withPermits}, {@code withPermit}</b> hold exactly while the inner publisher runs
 *       and release on its completion, error and cancellation (one operator, {@code Holding}; not
 *       {@code Flux.usingWhen}, which can lose a cancel that crosses the grant).</li>
 *   <li><b>Nothing blocks.</b> No method blocks its caller or a subscriber's thread; signals are emitted on the
 *       client's executor, never on a Redis I/O thread. The test suite runs every path under BlockHound.</li>
 *   <li><b>Errors.</b> Null arguments, and bad waits, leases and permit counts of the acquiring methods, are thrown
 *       when the Mono is made, naming the object and the parameter; the core checks the other arguments (counts,
 *       names) when subscribed, as an {@link java.lang.IllegalArgumentException} error signal. Redis failures are
 *       {@link io.dlock.LockException} error signals, as the core's asynchronous methods report them.</li>
 * </ul>
 */
package io.dlock.reactor;
