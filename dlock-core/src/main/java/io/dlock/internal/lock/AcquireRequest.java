package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;

import java.util.function.ToLongFunction;

/**
 * What {@link RedisLock} knows when it asks a {@link LockProtocol} for one acquire call: the facts the kinds' scripts
 * take as arguments, read once per attempt from this client's records. Immutable.
 *
 * @param ownerId          the acquiring owner
 * @param effectiveLeaseMs the lease to send: the requested one, or the watchdog timeout for a watchdog lease
 * @param waits            the caller may wait (a waiter may leave a waiting mark in Redis); false for one attempt
 * @param held             the count the client counts on for this hold, as the scripts' "held" argument (§1.9)
 * @param waitedNanos      how long this owner has waited with its waiting mark set in this client (0 at first)
 * @param current          this client's live record of the owner's hold, or null
 * @param knownCounts      the count this client knows for another field of the same lock (lost-reply rule, §1.7)
 * @param thread           the name of the thread that began the acquisition (a hold record, {@link HoldRecord})
 */
record AcquireRequest(long ownerId, long effectiveLeaseMs, boolean waits, String held, long waitedNanos,
                      Hold current, ToLongFunction<String> knownCounts, String thread) {
}
