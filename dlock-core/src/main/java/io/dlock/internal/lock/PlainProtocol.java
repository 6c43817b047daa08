package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.AcquireLoop;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

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
    private final LockServices services;
    private final String name;
    private final String[] lockKey;
    /** The unlock channel: an ARGV of the scripts, never a KEY (an ACL key pattern need not match channels). */
    private final String channel;

    PlainProtocol(LockContext context) {
        this.context = context;
        this.services = context.services();
        this.name = context.name();
        this.lockKey = new String[] {name};
        this.channel = LockNames.lockChannel(name);
    }

    @Override
    public LockContext context() {
        return context;
    }

    @Override
    public CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String field = context.ownerField(ownerId);
        return context.attempt(new HoldId(name, field), ownerId, leaseMs, services.hashFieldRenewal,
                (known, held) -> services.scripts.run(Scripts.LOCK_ACQUIRE, ScriptOutputType.INTEGER, lockKey,
                        Long.toString(context.effectiveLease(leaseMs)), field, Long.toString(known), held),
                new LockContext.AcquireReplies() {
                    @Override
                    public void granted(Hold hold) {
                        services.cohorts.acquired(name, ownerId, hold);
                    }
                });
    }

    /**
     * After an attempt whose reply never came, drops whatever count it left above what this client knows (nothing
     * when it did not run): that attempt may have taken a hold nobody knows of, which would otherwise outlive the
     * wait by its whole lease.
     */
    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        String field = context.ownerField(ownerId);
        return services.pending.dropIfUnanswered(new HoldId(name, field), (lease, known) -> services.scripts.runByText(
                Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER, lockKey, field, Long.toString(lease),
                services.publishCommand, channel, Long.toString(known), "drop-unknown"));
    }

    @Override
    public LocalGate localGate(long ownerId, long leaseMs) {
        return new CohortGate(services.cohorts, name, ownerId, leaseMs);
    }

    /**
     * Releases one hold of {@code ownerId}; when it is the owner's last and another owner of this client waits for
     * the lock, hands the lock to that one instead ({@link LocalCohort}).
     */
    @Override
    public CompletableFuture<Long> release(long ownerId, Hold hold) {
        String field = context.ownerField(ownerId);
        return HandOffRelease.send(this, ownerId, hold, receivers -> services.scripts.<Long>run(Scripts.LOCK_HANDOFF,
                        ScriptOutputType.INTEGER, lockKey, field, receivers.get(0).field(),
                        Long.toString(receivers.get(0).leaseMs()))
                .thenApply(PlainProtocol::handOffOutcome),
                () -> services.scripts.run(Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER, lockKey, field,
                        Long.toString(context.leaseAfterRelease(hold)), services.publishCommand, channel,
                        context.countAfterRelease(new HoldId(name, field), hold), "release"));
    }

    /** A first-waiter hand-off script's reply (lock_handoff.lua's, rwlock_write_handoff.lua's): 1 = moved, 0 = nothing moved (release as usual), nil = the owner held nothing. */
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
    public CompletableFuture<Boolean> forceRelease() {
        services.renewer.discardAll(name);
        services.cohorts.cleared(name);
        CompletableFuture<Long> reply = services.scripts.run(Scripts.LOCK_FORCE_RELEASE, ScriptOutputType.INTEGER,
                lockKey, services.publishCommand, "0", channel);
        return context.mapErrors(reply.thenApply(removed -> removed != null && removed == 1L), "forceUnlock");
    }
}
