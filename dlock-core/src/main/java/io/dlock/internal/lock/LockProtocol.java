package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.AcquireLoop;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * One lock kind on the wire: its scripts, keys, fields and channel (docs/protocol.md), and nothing else. Everything a
 * kind does not decide (argument checks, waiting, lost replies, releases with their failures, replica confirmation,
 * events, lease extension, the public API) is written once in {@link RedisLock}, which drives a protocol; a kind is
 * a {@link LockKind}-tagged protocol object, not a subclass.
 *
 * <p>Every method acts for one owner ({@code ownerId}: a thread id or a {@code LockOwner}'s id), never blocks, and
 * may be called from any thread, concurrently. Futures complete on a Redis I/O thread: their callbacks must not
 * block. A method may also throw instead of failing its future; {@link RedisLock} treats both alike.
 *
 * <p>The defaults serve the common layout, a hash at the lock's name with one field per owner (the plain, fenced and
 * fair locks); other layouts override them.
 *
 * <p>Implementations: {@link PlainProtocol}, {@link FencedProtocol} (the plain one plus a token),
 * {@link FairProtocol}, {@link ReadProtocol} and {@link WriteProtocol} (the two sides, each a
 * {@link ReadWriteProtocol} over its {@link ReadWriteSide}, sharing one lock's {@link ReadWriteKeys}).
 */
interface LockProtocol {

    /** @return the lock's name and kind, and the client's services */
    LockContext context();

    /** How error messages name this lock, e.g. {@code lock 'orders'} or {@code fair lock 'orders'}. */
    default String describe() {
        return context().describe();
    }

    /** @return the hold table key of this lock's holds (the name of the hash that holds the owner fields) */
    default String holdKey() {
        return context().name();
    }

    /** @return the field of {@code ownerId}'s hold, in Redis and in the hold table */
    default String holdField(long ownerId) {
        return context().ownerField(ownerId);
    }

    /**
     * One attempt for {@code ownerId}, sent through the lost-reply rule ({@link io.dlock.internal.acquire.PendingAcquisitions#track}); a grant
     * is recorded with the renewer before the future completes.
     *
     * @param leaseMs    the lease, or {@link io.dlock.DistributedLock#LEASE_WATCHDOG}
     * @param waitMillis the caller's whole wait: 0 for a single attempt, {@code WAIT_FOREVER}, or a positive time
     * @return null when acquired, else how long to sleep at most before the next attempt (ms; the lock's PTTL for most
     *         kinds, negative when unknown)
     */
    CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis);

    /**
     * Removes what failed attempts of {@code ownerId} left in Redis once it stops waiting without the lock (timeout,
     * interrupt, cancellation, failure): at least what an attempt without a reply may have taken
     * ({@link io.dlock.internal.acquire.PendingAcquisitions#dropIfUnanswered}).
     */
    CompletableFuture<Void> giveUp(long ownerId);

    /**
     * Sends the release of one acquisition of {@code ownerId}. Reply: 1 or more = the owner's last hold went (kinds
     * with local hand-offs add the number of subscribers its unlock message reached), 0 = holds remain, nil = the
     * owner held none.
     *
     * @param hold this client's record of the hold (its leases decide the TTL after a partial release), or null
     */
    CompletableFuture<Long> release(long ownerId, Hold hold);

    /**
     * Sends the lease extension of {@code ownerId}'s hold ({@link LeaseExtension}). Reply: 1 = it now expires
     * {@code leaseMs} from now, 0 = the owner holds nothing in Redis. By default the hold is the owner's field of the
     * hash at {@link #holdKey()} ({@code lock_extend.lua}).
     */
    default CompletableFuture<Long> extend(long ownerId, long leaseMs) {
        return context().services().scripts.run(Scripts.LOCK_EXTEND, ScriptOutputType.INTEGER,
                new String[] {holdKey()}, Long.toString(leaseMs), holdField(ownerId));
    }

    /** Removes the lock whoever holds it; true if it was removed. Also forgets this client's records of it. */
    CompletableFuture<Boolean> forceRelease();

    /** The channel whose messages wake {@code ownerId}'s waits. */
    String wakeupChannel(long ownerId);

    /**
     * Whether every message on {@link #wakeupChannel} wakes all of this client's waiters on it, not just one: for
     * kinds whose waiters on one channel differ (readers and writers).
     */
    default boolean everyMessageWakesAllWaiters() {
        return false;
    }

    /**
     * The gate through which {@code ownerId}'s acquisition waits behind other owners of this client and takes
     * hand-offs from them ({@link LocalCohort}); null for kinds where holders share the lock or a queue in Redis
     * decides the order.
     */
    default LocalGate localGate(long ownerId, long leaseMs) {
        return null;
    }

    /** @return whether the lock is held (for a read-write side: held in that side's mode); by default: the hash exists */
    default CompletableFuture<Boolean> locked() {
        return context().hashExists();
    }

    /**
     * @return the lock's remaining TTL in ms ({@code TTL_NOT_LOCKED} / {@code TTL_NO_EXPIRY} as in the API); by
     *         default the hash's
     */
    default CompletableFuture<Long> ttl() {
        return context().hashTtl();
    }

    /** @return {@code ownerId}'s hold count as Redis has it; by default its field's count in the hash */
    default CompletableFuture<Integer> holdCount(long ownerId) {
        return context().hashCount(holdField(ownerId));
    }
}
