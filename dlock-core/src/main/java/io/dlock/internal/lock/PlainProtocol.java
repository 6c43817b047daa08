package io.dlock.internal.lock;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.List;

/**
 * The protocol of the reentrant, non-fair lock ({@link io.dlock.LockKind#PLAIN}), wire-compatible with Redisson's
 * {@code RLock}.
 *
 * <h2>Key layout (docs/protocol.md §2)</h2>
 * <ul>
 *   <li>{@code NAME}: a hash with one field per holding owner, {@code <client id>:<owner id>} → hold count. An
 *       exclusive lock has at most one field. The hash always has a TTL: the owner's lease, or the watchdog
 *       timeout renewed every third of it.</li>
 *   <li>{@code redisson_lock__channel:{NAME}}: the last release deletes the hash and publishes {@code 0} here
 *       (wake one waiter).</li>
 *   <li>{@code dlock_hold:{NAME}}, with {@link io.dlock.LockClientConfig.Builder#holdDetails} only: the hold record
 *       ({@link HoldRecord}), written by the acquisition or hand-off that gives a hold, kept with its TTL, deleted
 *       by its last release.</li>
 * </ul>
 *
 * <h2>Costs</h2>
 * An uncontended {@code lock()} + {@code unlock()} is two round trips ({@code EVALSHA} each), nothing else; a
 * re-entry or partial release one. Waiting adds one {@code SUBSCRIBE} per client and lock name, shared.
 * Between owners of one client, contention costs no failed attempts and a hand-over costs one call
 * ({@code lock_handoff.lua}, see {@link LocalCohort}): owners wait behind the local holder inside the client, and
 * the releasing owner moves the lock straight to the first of them, at most
 * {@link io.dlock.LockClientConfig.Builder#localHandoffs} times in a row before the lock goes back through Redis.
 *
 * <h2>Leases</h2>
 * Each acquisition (re-entries included) resets the TTL to its lease; a partial release resets it to the lease of
 * the remaining innermost acquisition, or to the watchdog timeout while any remaining one is watchdog-renewed.
 */
final class PlainProtocol implements LockProtocol {
    private final LockContext context;
    private final String name;
    private final String[] lockKey;
    /** The keys of the release and extension scripts: the hash, and the hold's record when there is one. */
    private final String[] releaseKeys;
    /** The keys of the acquire and hand-off scripts: the hash, and the hold record when this protocol writes one. */
    private final String[] acquireKeys;
    /** The unlock channel: an ARGV of the scripts, never a KEY (an ACL key pattern need not match channels). */
    private final String channel;

    /** The plain lock: with a hold record when its client keeps them ({@link LockSettings#holdDetails()}). */
    PlainProtocol(LockContext context) {
        this(context, context.services().settings().holdDetails() ? HoldRecord.key(context.name()) : null, true);
    }

    /**
     * The fenced lock's release side.
     *
     * @param leaderKey a leader election's record ({@link LeaderRecord}), which the owner's last release (or a
     *                  drop-unknown that ends its hold) deletes with the hash when it is the owner's; null for none
     */
    PlainProtocol(LockContext context, String leaderKey) {
        this(context, leaderKey, false);
    }

    /**
     * @param recordKey   the hold's record (a {@link HoldRecord} or a {@link LeaderRecord}), or null for none
     * @param writesRecord whether the acquire and hand-off scripts write {@code recordKey} (a hold record)
     */
    private PlainProtocol(LockContext context, String recordKey, boolean writesRecord) {
        this.context = context;
        this.name = context.name();
        this.lockKey = new String[] {name};
        this.releaseKeys = recordKey == null ? lockKey : new String[] {name, recordKey};
        this.acquireKeys = recordKey != null && writesRecord ? releaseKeys : lockKey;
        this.channel = LockNames.lockChannel(name);
    }

    /** @return whether this protocol writes a hold record */
    private boolean writesRecord() {
        return acquireKeys.length > 1;
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        String lease = Long.toString(request.effectiveLeaseMs());
        String field = context.ownerField(request.ownerId());
        if (writesRecord()) {
            return ScriptCall.integer(Scripts.LOCK_ACQUIRE, acquireKeys, lease, field, Long.toString(knownCount),
                    request.held(), request.thread());
        }
        return ScriptCall.integer(Scripts.LOCK_ACQUIRE, lockKey, lease, field, Long.toString(knownCount),
                request.held());
    }

    /** The extension renews the hold record with the hold (same TTL), when there is one. */
    @Override
    public ScriptCall extend(long ownerId, long leaseMs) {
        return ScriptCall.integer(Scripts.LOCK_EXTEND, releaseKeys, Long.toString(leaseMs), holdField(ownerId));
    }

    @Override
    public ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount) {
        return ScriptCall.integer(Scripts.LOCK_RELEASE, releaseKeys, context.ownerField(ownerId),
                Long.toString(leaseMs), context.publishCommand(), channel, Long.toString(knownCount), "drop-unknown")
                .byText();
    }

    @Override
    public LocalWait localWait() {
        return LocalWait.EXCLUSIVE;
    }

    @Override
    public ScriptCall release(long ownerId, Hold hold, String countAfter) {
        return ScriptCall.integer(Scripts.LOCK_RELEASE, releaseKeys, context.ownerField(ownerId),
                Long.toString(context.leaseAfterRelease(hold)), context.publishCommand(), channel, countAfter,
                "release");
    }

    /** The last release moves the lock to the first local waiter ({@code lock_handoff.lua}). */
    @Override
    public HandOff handOff(long ownerId, Hold hold, String countAfter) {
        String field = context.ownerField(ownerId);
        return new HandOff() {
            @Override
            public HandOff.Receiver receiver(LocalWaiter waiter, long leaseMs) {
                return new HandOff.Receiver(holdField(waiter.ownerId), leaseMs, PlainProtocol.this, waiter.thread);
            }

            @Override
            public ScriptCall call(List<HandOff.Receiver> receivers) {
                HandOff.Receiver to = receivers.get(0);
                if (writesRecord()) {
                    return ScriptCall.integer(Scripts.LOCK_HANDOFF, acquireKeys, field, to.field(),
                            Long.toString(to.leaseMs()), to.thread());
                }
                return ScriptCall.integer(Scripts.LOCK_HANDOFF, lockKey, field, to.field(), Long.toString(to.leaseMs()));
            }

            @Override
            public HandOffRelease.Outcome read(Long reply) {
                return handOffOutcome(reply);
            }
        };
    }

    /**
     * A first-waiter hand-off script's reply (lock_handoff.lua's, rwlock_write_handoff.lua's): 1 = moved, 0 = nothing
     * moved (release as usual), nil = the owner held nothing.
     */
    static HandOffRelease.Outcome handOffOutcome(Long reply) {
        if (reply == null) {
            return new HandOffRelease.Outcome.Released(null);
        }
        return reply == 1L ? new HandOffRelease.Outcome.MovedTo(0) : new HandOffRelease.Outcome.NotMoved();
    }

    @Override
    public String wakeupChannel(long ownerId) {
        return channel;
    }

    @Override
    public ScriptCall forceRelease() {
        return ScriptCall.integer(Scripts.LOCK_FORCE_RELEASE, lockKey, context.publishCommand(), "0", channel);
    }
}
