package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.concurrent.CompletableFuture;

/**
 * One lock kind on the wire: its scripts, keys, fields and channel (docs/protocol.md), and nothing else. A protocol
 * <em>describes</em>: for each step it returns the call to send ({@link ScriptCall}) and reads the reply; it sends
 * nothing of the acquire, give-up, release, extension or forced release itself and keeps no books. {@link RedisLock}
 * <em>drives</em>: it sends the calls and alone applies what every kind shares (the lost-reply rule, waiting marks,
 * grant records, hold-gone handling, the local cohort, hand-offs through {@link HandOffRelease}, errors, events).
 * A kind is a {@link io.dlock.LockKind}-tagged protocol object, not a subclass.
 *
 * <p>Every method acts for one owner ({@code ownerId}: a thread id or a {@code LockOwner}'s id), never blocks, and
 * may be called from any thread, concurrently; implementations are immutable. A method may throw; {@link RedisLock}
 * treats that as a failed step.
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
     * @return the field, in the same hash, of {@code ownerId}'s hold on the other side of its read-write lock, or null
     *         (every kind but the two sides of a read-write lock: an owner has one field per lock). An acquisition
     *         starts only once the cleanups recorded for both fields are done ({@link RedisLock#startAcquire}): the
     *         scripts of one side read and change the owner's field of the other (a write acquisition drops the
     *         owner's read holds above the count its client knows), so an attempt of one side that its acquisition
     *         left unanswered (the deadline rule) must run before the owner's next acquisition of the other side is
     *         sent, never after it.
     */
    default String otherSideField(long ownerId) {
        return null;
    }

    /** @return how this kind's holds are renewed; by default as a field of the hash at {@link #holdKey()} */
    default RenewalSender renewal() {
        return context().services().redis().hashFieldRenewal();
    }

    /**
     * @return the mark a waiter of this kind keeps in the hold table while it may have left a waiting mark (or a queue
     *         place) in Redis, set from its first waiting attempt until a grant, a gone hold or a refusal ends the
     *         wait; null when the kind leaves none
     */
    default Mark waitingMark() {
        return null;
    }

    /**
     * The acquire call of one attempt.
     *
     * @param knownCount the count this client knows for the hold, sent for the lost-reply rule (§1.7)
     */
    ScriptCall acquire(AcquireRequest request, long knownCount);

    /**
     * Reads an acquire reply. May throw for a refusal the caller must hear of (it ends the wait).
     * By default the common integer reply ({@link AcquireReply#ofInteger}).
     */
    default AcquireReply readAcquire(Object reply, AcquireRequest request) {
        return AcquireReply.ofInteger((Long) reply);
    }

    /** @return the call that takes back the waiting mark {@code ownerId} may have left ({@link #waitingMark}) */
    default ScriptCall withdrawMark(long ownerId) {
        throw new UnsupportedOperationException(describe() + " leaves no waiting mark");
    }

    /**
     * The call that drops, after an attempt whose reply never came, whatever count it left above what this client
     * knows ("drop-unknown"; nothing when it did not run).
     *
     * @param leaseMs    the hold's current lease, kept when counts remain
     * @param knownCount the count this client knows
     */
    ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount);

    /**
     * The release of one acquisition of {@code ownerId}. Reply: 1 or more = the owner's last hold went (kinds with
     * local hand-offs add the number of subscribers its unlock message reached), 0 = holds remain, nil = the owner
     * held none.
     *
     * @param hold       this client's record of the hold (its leases decide the TTL after a partial release), or null
     * @param countAfter the owner's count after the release as this client knows it, {@code -1} when unknown
     */
    ScriptCall release(long ownerId, Hold hold, String countAfter);

    /**
     * @param hold       as for {@link #release}
     * @param countAfter as for {@link #release}
     * @return how the last release of {@code ownerId} hands the lock to owners of this client waiting behind it, or
     *         null when it never does
     */
    default HandOff handOff(long ownerId, Hold hold, String countAfter) {
        return null;
    }

    /**
     * The lease extension of {@code ownerId}'s hold ({@link LeaseExtension}). Reply: 1 = it now expires
     * {@code leaseMs} from now, 0 = the owner holds nothing in Redis. By default the hold is the owner's field of the
     * hash at {@link #holdKey()} ({@code lock_extend.lua}).
     */
    default ScriptCall extend(long ownerId, long leaseMs) {
        return ScriptCall.integer(Scripts.LOCK_EXTEND, new String[] {holdKey()}, Long.toString(leaseMs),
                holdField(ownerId));
    }

    /** The call that removes the lock whoever holds it. Reply: 1 = removed. */
    ScriptCall forceRelease();

    /**
     * Whether the forced release removes the lock only when it is held in this kind's mode (a read-write side): then
     * this client forgets its records of the lock only once Redis says it removed it, else before sending.
     */
    default boolean forceReleaseOnlyInOwnMode() {
        return false;
    }

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
     * Whether {@link #wakeupChannel} is the owner's alone (a fair waiter's), so that each wait would subscribe and
     * unsubscribe it: it then stays subscribed a while after the wait, for the owner's next one
     * ({@link io.dlock.internal.wakeup.WakeupHub#joinLingering}).
     */
    default boolean channelPerOwner() {
        return false;
    }

    /**
     * @return how owners wait behind other owners of this client and take hand-offs from them ({@link LocalCohort});
     *         null for kinds whose holders never wait inside the client
     */
    default LocalWait localWait() {
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
