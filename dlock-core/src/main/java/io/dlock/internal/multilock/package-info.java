/**
 * The multi-lock ({@link io.dlock.MultiLock}): several locks of one client taken all or nothing, in one global order.
 * Not API; may change without notice.
 *
 * <ul>
 *   <li>{@code MemberOrder}: checks the members (one client, no lock twice except the two sides of one read-write
 *       lock) and sorts them into the global order.</li>
 *   <li>{@link io.dlock.internal.multilock.RedisMultiLock}: the API, each operation driving the members' own
 *       methods in that order; every acquisition (sync or async) is one {@code MultiLockAsync}.</li>
 *   <li>{@code AttemptsAtOnce}: one single attempt per member not held yet, all sent at once, keeping the members
 *       before the first refusal (the rest given back, answered, before the wait for the refused one), so an
 *       acquisition waits only while holding members before the awaited one.</li>
 *   <li>{@code MultiLockAsync}: the one acquisition (attempts at once, then a wait for the first refused member,
 *       without holding a thread; its steps run on the threads that bring Redis's answers, through the members'
 *       internal acquisitions, {@link io.dlock.internal.lock.RedisLocks#acquireForMultiLock}), and the release of what
 *       was taken when one fails or it is given up (cancel, interrupt). A sync caller waits for it on the client's
 *       {@code SyncWaits}; an async caller's future completes on the client's executor.</li>
 *   <li>With a fixed lease, it takes every member but the last with the watchdog and set the lease of those once the
 *       last is taken ({@code RedisMultiLock.settleLeases}, through
 *       {@link io.dlock.internal.lock.RedisLocks#settleMultiLockLease}); a member found gone then restarts the
 *       acquisition.</li>
 *   <li>{@code Failures}: collects what went wrong over the members and reports it as one exception naming each.</li>
 * </ul>
 * The multi-lock has no keys or channels of its own: on the wire it is its members (docs/protocol.md §12). Plain
 * members whose names share one hash slot are taken in one script by {@link io.dlock.internal.lock.PlainLockGroup},
 * which records each grant as the member's own hold.
 */
package io.dlock.internal.multilock;
