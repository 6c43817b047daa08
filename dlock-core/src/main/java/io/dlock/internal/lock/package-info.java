/**
 * The lock kinds and the machinery they share. Not API; may change without notice (applications reach these classes
 * only through the interfaces of {@code io.dlock}).
 *
 * <ul>
 *   <li>{@link io.dlock.internal.lock.LockApi}: the whole {@code DistributedLock} API for one owner (argument checks,
 *       sync over async, completion on the client's executor) over the machinery of
 *       {@link io.dlock.internal.lock.AbstractDistributedLock}, which acquires, releases, hands over and extends over
 *       a few primitives that each kind provides: one acquire attempt, one release, a give-up clean-up, a forced
 *       release, a lease extension. A lock object acts for the calling thread; {@code OwnerView} (from
 *       {@code as(owner)}) for a fixed owner. {@code LeaseExtension}, {@code HandOffRelease} and
 *       {@code AbandonedCleanups} each hold one step of that machinery.</li>
 *   <li>The kinds: {@link io.dlock.internal.lock.ReentrantRedisLock} (plain),
 *       {@link io.dlock.internal.lock.FencedRedisLock}, {@link io.dlock.internal.lock.FairRedisLock} and
 *       {@link io.dlock.internal.lock.ReadWriteRedisLock} with its read and write sides. Each opens with the design
 *       notes of its key layout.</li>
 *   <li>{@code AcquireLoop}: one acquisition that may wait (attempt, subscribe, sleep until a wake-up or the lock's
 *       TTL, attempt again), holding no thread while it waits.</li>
 *   <li>{@code LocalCohort} and {@code LocalCohorts}: what a client knows of its own owners of a plain lock, so that
 *       they wait behind each other inside the client and hand the lock over in one script call.</li>
 *   <li>{@code PendingAcquisitions}: the lost-reply rule for every kind (attempts tracked in the client's
 *       {@link io.dlock.internal.lease.HoldTable}, so that the scripts get the hold count the client knows, and the
 *       drop after a give-up that followed an unanswered attempt).</li>
 *   <li>{@link io.dlock.internal.lock.LockServices}: what every lock of one client shares;
 *       {@link io.dlock.internal.lock.ReplicaSync} ({@code syncReplicas}), {@link io.dlock.internal.lock.SyncWaits}
 *       (blocking waits of the sync API), and the renewal senders
 *       {@link io.dlock.internal.lock.HashFieldRenewal} and {@link io.dlock.internal.lock.ReadHoldRenewal}.</li>
 * </ul>
 *
 * <p>Threads: script replies and pub/sub wake-ups complete the futures of this package on Lettuce's I/O threads and
 * on the client's timer thread, so every continuation here is non-blocking and runs no user code; user-facing futures
 * are completed on the client's executor. See {@code docs/architecture.md} (sections 3 to 8) and
 * {@code docs/protocol.md} (sections 2 to 5).
 */
package io.dlock.internal.lock;
