package io.dlock.internal.lock;

import io.dlock.LockLostException;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Args;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Extends the lease of one owner's hold ({@link io.dlock.DistributedLock#extendLease}): checks this client's record of
 * the hold, sends the lock kind's extension script ({@link LockProtocol#extend}) and settles the
 * record from the reply.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li><b>Only a hold known valid is extended.</b> Without one (never acquired, released, force-unlocked by this
 *       client, or counted out: its lease ran out by this client's count) nothing is sent and the caller gets
 *       {@link IllegalMonitorStateException}: extending a hold the client no longer vouched for could hide a gap in
 *       which another owner held the lock.</li>
 *   <li><b>Granted</b> (reply 1): the record takes the new lease for every acquisition, counted from when the request
 *       was <em>sent</em> (Redis started the TTL no earlier), and the watchdog no longer renews it.</li>
 *   <li><b>Gone</b> (reply 0): the record is reported lost to the lease-lost listeners and dropped; the caller gets
 *       {@link LockLostException}.</li>
 *   <li><b>No answer</b> (an error, a timeout): the script may or may not have run, so the record's validity becomes
 *       the sooner of the old one and the new lease from the send, which Redis keeps either way; the caller gets the
 *       {@link io.dlock.LockException}.</li>
 * </ul>
 * So the holder never believes in its hold longer than Redis keeps it.
 */
final class LeaseExtension {
    private LeaseExtension() {
    }

    /**
     * @return completes on a Redis I/O thread when the hold was extended, or fails as the rules above say (also with
     *         {@link io.dlock.LockException} when the client is closed)
     * @throws NullPointerException     when {@code lease} is null
     * @throws IllegalArgumentException when {@code lease} is out of range; nothing is sent
     */
    static CompletableFuture<Void> extend(RedisLock lock, long ownerId, Duration lease) {
        return extend(lock, ownerId, Args.extensionMillis(lock.name, lease), false);
    }

    /**
     * Gives a multi-lock's acquisition of a member, taken with the watchdog while the multi-lock waited for its other
     * members, the multi-lock's fixed lease, counted from now (docs/protocol.md §12). When another acquisition of the
     * owner keeps the hold watchdog-renewed, only this client's record changes and nothing is sent (shortening the
     * TTL would cut that other acquisition's hold; the multi-lock's goes with it); otherwise the hold is extended to
     * the lease as {@link #extend} does, so Redis confirms the hold is still there.
     *
     * @param leaseMs the multi-lock's lease, in the range of {@link Args#leaseMillis}
     * @return completes when done, or fails as {@link #extend}: {@link IllegalMonitorStateException} when this client
     *         no longer knows the hold valid, {@link LockLostException} when Redis no longer has it
     */
    static CompletableFuture<Void> settleMultiLockLease(RedisLock lock, long ownerId, long leaseMs) {
        return extend(lock, ownerId, leaseMs, true);
    }

    private static CompletableFuture<Void> extend(RedisLock lock, long ownerId, long leaseMs, boolean innermostOnly) {
        LockServices services = lock.services;
        LockProtocol protocol = lock.protocol;
        String field = protocol.holdField(ownerId);
        Hold hold;
        try {
            services.checkOpen(lock.name);
            hold = services.holds().find(new HoldId(protocol.holdKey(), field));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (hold == null) {
            return CompletableFuture.failedFuture(new IllegalMonitorStateException(protocol.describe()
                    + " is not held by owner " + field + " (never acquired, already released or force-unlocked, or "
                    + "its lease ran out), so its lease cannot be extended"));
        }
        if (innermostOnly && services.holds().innermostToFixedLease(hold, leaseMs)) {
            return CompletableFuture.completedFuture(null);
        }
        long sentAt = services.clock().nanoTime();
        CompletableFuture<Long> reply = Errors.call(() -> protocol.extend(ownerId, leaseMs).send(services.redis().scripts()));
        return reply.handle((extended, error) -> {
            if (error != null) {
                services.holds().extensionUnknown(hold, sentAt, leaseMs);
                throw Errors.toApi(error, lock.name, innermostOnly ? "lock (setting the multi-lock's lease)"
                        : "extendLease");
            }
            if (extended != null && extended == 1L) {
                services.holds().extended(hold, sentAt, leaseMs);
                return null;
            }
            services.holds().goneFromRedis(hold);
            throw new LockLostException(lock.name, protocol.describe() + ": the hold of owner " + field + " is gone "
                    + "from Redis (its lease ran out there, or it was removed: a forceUnlock, a failover or a "
                    + "restart), so its lease cannot be extended; what the lock protected may have been changed "
                    + "meanwhile");
        });
    }
}
