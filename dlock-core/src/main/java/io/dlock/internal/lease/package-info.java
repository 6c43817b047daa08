/**
 * Hold records and the watchdog. Not API; may change without notice.
 *
 * <ul>
 *   <li>{@link io.dlock.internal.lease.Hold}: what a client knows about one owner's hold on one lock: the lease of
 *       each outstanding acquisition, whether the watchdog renews it, and until when it is known to be valid on the
 *       monotonic clock (the source of {@code leaseValidFor()}).</li>
 *   <li>{@link io.dlock.internal.lease.HoldTable}: everything a client knows about its holds, keyed by (key, field):
 *       the {@code Hold}, attempts awaiting their reply or never answered, marks left in Redis while waiting; what the
 *       scripts are told (known count, current lease, count after a release). The one front door of a hold's life:
 *       granted, releasing (a {@code Release} handle, settled once by the reply), released, lost (removed, expired,
 *       renewal failed), each ending reported exactly once.</li>
 *   <li>{@link io.dlock.internal.lease.LeaseRenewer}: the watchdog over the hold table, and only that: renews the
 *       watchdog holds in batches every third of the watchdog timeout, reads the fixed leases back, and reports the
 *       outcomes to the table. Only the client's composition root builds, starts and closes it.</li>
 *   <li>{@link io.dlock.internal.lease.LeaseEnds}: the rule for a fixed lease's end, shared by lock holds and leased
 *       permits: the grant is reported lost when its known validity ends, not at the next renewal round.</li>
 *   <li>{@link io.dlock.internal.lease.RenewalSender}: how one kind of hold is renewed (implemented in
 *       {@code io.dlock.internal.lock}).</li>
 *   <li>{@link io.dlock.internal.lease.TaskScheduler}: the injectable timer, so that renewal logic is tested without
 *       real time.</li>
 * </ul>
 * Nothing here knows a lock kind's or a semaphore's rules: kinds come in as {@code RenewalSender}s and
 * {@code LockKind}s, permits as {@code LeaseEnds.FixedLease}s. Thread-safe; nothing here blocks. Design notes: the
 * Javadoc of {@code HoldTable} and {@code LeaseRenewer}, and {@code docs/architecture.md} section 6.
 */
package io.dlock.internal.lease;
