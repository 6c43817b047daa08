/**
 * The multi-lock ({@link io.dlock.MultiLock}): several locks of one client taken all or nothing, in one global order.
 * Not API; may change without notice.
 *
 * <ul>
 *   <li>{@code MemberOrder}: checks the members (one client, no lock twice except the two sides of one read-write
 *       lock) and sorts them into the global order.</li>
 *   <li>{@link io.dlock.internal.multilock.RedisMultiLock}: the sync API, each operation driving the members' own
 *       methods in that order (acquisitions: attempts at once, then the members' sync waits).</li>
 *   <li>{@code AttemptsAtOnce}: one single attempt per member not held yet, all sent at once, keeping the members
 *       before the first refusal (the rest given back, answered, before the wait for the refused one): used by both
 *       acquisitions, so an acquisition waits only while holding members before the awaited one.</li>
 *   <li>{@code MultiLockAsync}: the async acquisitions (attempts at once, then a wait for the first refused member,
 *       without holding a thread), and the release of what was taken when one fails or the future is
 *       cancelled.</li>
 *   <li>With a fixed lease, both take every member but the last with the watchdog and set the lease of those once the
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
