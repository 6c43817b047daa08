/**
 * The lock kinds and the machinery they share. Not API; may change without notice (applications reach these classes
 * only through the interfaces of {@code io.dlock}).
 *
 * <ul>
 *   <li>{@link io.dlock.internal.lock.RedisLock}: the one lock implementation. It acquires (waits, the lost-reply
 *       rule, waiting marks, grant records, hold-gone handling, local gate and cohort, replica confirmation, events,
 *       cleanups of abandoned acquisitions), releases (with their hand-offs and failures), extends, force-releases and
 *       reads, for every kind alike, by driving the kind's {@link io.dlock.internal.lock.LockProtocol}, which only
 *       describes: it returns the calls to send ({@link io.dlock.internal.script.ScriptCall}) and reads the replies
 *       ({@code AcquireRequest}, {@code AcquireReply}, {@code HandOff}, {@code LocalWait}). {@code LeaseExtension}
 *       and {@code HandOffRelease} each hold one step of that machinery.</li>
 *   <li>The kinds are protocols, not subclasses: {@code PlainProtocol}, {@code FencedProtocol} (the plain one plus a
 *       token), {@code FairProtocol}, and {@code ReadProtocol} / {@code WriteProtocol} (sharing a
 *       {@code ReadWriteSide}), each a {@link io.dlock.LockKind} with its scripts, keys and channel, opening with the
 *       design notes of its key layout. {@link io.dlock.internal.lock.RedisLocks} makes the lock objects;
 *       {@code ReadWriteRedisLock} pairs the two sides.</li>
 *   <li>{@link io.dlock.internal.lock.LockApi}: the whole {@code DistributedLock} API for one owner (argument checks,
 *       sync over async, completion on the client's executor), served by {@code OwnerView} for the calling thread (the
 *       objects a client hands out) or a fixed owner ({@code as(owner)}); {@code FencedOwnerView} adds the token
 *       methods ({@code FencedTokens}).</li>
 *   <li>The wait itself is the one {@link io.dlock.internal.acquire.AcquireLoop} of every kind (package
 *       {@code io.dlock.internal.acquire}), given each lock's steps by {@code RedisLock.startAcquire}.</li>
 *   <li>{@code LocalCohort}, {@code LocalLine} and {@code LocalCohorts}: what a client knows of its own owners of an
 *       exclusive lock (plain, fair, the write side of a read-write lock), so that they wait behind each other inside
 *       the client and hand the lock over in one script call ({@code HandOffRelease}; readers wait behind a local
 *       writer and get their holds together).</li>
 *   <li>{@link io.dlock.internal.acquire.PendingAcquisitions}: the lost-reply rule of every lock kind (attempts
 *       tracked in the client's {@link io.dlock.internal.lease.HoldTable}, so that the scripts get the hold count the
 *       client knows, and the drop after a give-up that followed an unanswered attempt).</li>
 *   <li>{@link io.dlock.internal.lock.LockServices}: what every lock of one client shares: the client's
 *       {@link io.dlock.internal.parts.ClientParts} (the front door {@link io.dlock.internal.acquire.Acquisitions}, the
 *       one {@link io.dlock.internal.parts.ClientClock}, the timer, the event sink) plus the locks' own:
 *       {@link io.dlock.internal.lock.LockSettings}, {@link io.dlock.internal.lock.LockRedis} (commands, scripts,
 *       wake-ups, {@link io.dlock.internal.lock.ReplicaSync}, the renewal senders
 *       {@link io.dlock.internal.lock.HashFieldRenewal} and {@link io.dlock.internal.lock.ReadHoldRenewal}), the
 *       hold table (the one front door of a hold's life; the renewer works behind it, out of the locks' reach), and
 *       {@code LocalOwners} (cohorts, group turns, timer).</li>
 *   <li>Every acquisition enters through the client's front door,
 *       {@link io.dlock.internal.acquire.Acquisitions#begin}: {@code RedisLock.startAcquire} for one lock,
 *       {@code PlainLockGroup} for plain locks on one slot taken in one script.</li>
 * </ul>
 *
 * <p>Threads: script replies and pub/sub wake-ups complete the futures of this package on Lettuce's I/O threads and
 * on the client's timer thread, so every continuation here is non-blocking and runs no user code; user-facing futures
 * are completed on the client's executor. See {@code docs/architecture.md} (sections 3 to 8) and
 * {@code docs/protocol.md} (sections 2 to 5).
 */
package io.dlock.internal.lock;
