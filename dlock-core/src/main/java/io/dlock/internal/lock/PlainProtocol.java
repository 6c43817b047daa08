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
    /** The keys of the release scripts: the hash, and a leader election's record when there is one. */
    private final String[] releaseKeys;
    /** The unlock channel: an ARGV of the scripts, never a KEY (an ACL key pattern need not match channels). */
    private final String channel;

    PlainProtocol(LockContext context) {
        this(context, null);
    }

    /**
     * @param leaderKey a leader election's record ({@link LeaderRecord}), which the owner's last release (or a
     *                  drop-unknown that ends its hold) deletes with the hash when it is the owner's; null for none
     */
    PlainProtocol(LockContext context, String leaderKey) {
        this.context = context;
        this.name = context.name();
        this.lockKey = new String[] {name};
        this.releaseKeys = leaderKey == null ? lockKey : new String[] {name, leaderKey};
        this.channel = LockNames.lockChannel(name);
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        return ScriptCall.integer(Scripts.LOCK_ACQUIRE, lockKey, Long.toString(request.effectiveLeaseMs()),
                context.ownerField(request.ownerId()), Long.toString(knownCount), request.held());
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
                return new HandOff.Receiver(holdField(waiter.ownerId), leaseMs, PlainProtocol.this);
            }

            @Override
            public ScriptCall call(List<HandOff.Receiver> receivers) {
                return ScriptCall.integer(Scripts.LOCK_HANDOFF, lockKey, field, receivers.get(0).field(),
                        Long.toString(receivers.get(0).leaseMs()));
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
