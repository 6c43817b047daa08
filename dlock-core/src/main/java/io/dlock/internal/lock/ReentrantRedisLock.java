package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The reentrant, non-fair lock, wire-compatible with Redisson's {@code RLock}.
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
public final class ReentrantRedisLock extends AbstractDistributedLock {
    private final String[] lockKey;
    /** The unlock channel: an ARGV of the scripts, never a KEY (an ACL key pattern need not match channels). */
    private final String channel;

    public ReentrantRedisLock(LockServices services, String name) {
        super(services, LockNames.requireValid(name), LockKind.PLAIN);
        this.lockKey = new String[] {name};
        this.channel = LockNames.lockChannel(name);
    }

    @Override
    protected CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String field = ownerField(ownerId);
        long effectiveLease = leaseMs == LEASE_WATCHDOG ? services.renewer.watchdogMs() : leaseMs;
        long sentAt = services.renewer.nanoTime();
        return services.pending.<Long>track(holdId(ownerId),
                known -> services.scripts.run(Scripts.LOCK_ACQUIRE, ScriptOutputType.INTEGER, lockKey,
                        Long.toString(effectiveLease), field, Long.toString(known)),
                ttl -> {
                    if (ttl == null) {
                        Hold hold = services.renewer.acquired(kind(), name, name, field, ownerId, leaseMs, sentAt,
                                services.hashFieldRenewal);
                        services.cohorts.acquired(name, ownerId, hold);
                    }
                    return ttl;
                });
    }

    /**
     * The acquisition gave up (timeout, interrupt, cancellation, failure) after an attempt whose reply never came: that
     * attempt may still have taken a hold nobody knows of, which would otherwise outlive the wait by its whole lease.
     * Drops whatever count it left above what this client knows (nothing when it did not run).
     */
    @Override
    protected CompletableFuture<Void> giveUp(long ownerId) {
        return services.pending.dropIfUnanswered(holdId(ownerId), (lease, known) -> services.scripts.runByText(
                Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER, lockKey, ownerField(ownerId), Long.toString(lease),
                services.publishCommand, channel, Long.toString(known), "drop-unknown"));
    }

    @Override
    AcquireLoop.LocalGate localGate(long ownerId, long leaseMs) {
        return new CohortGate(services.cohorts, name, ownerId, leaseMs);
    }

    /**
     * Releases one hold of {@code ownerId}; when it is the owner's last and another owner of this client waits for
     * the lock, hands the lock to that one instead ({@link LocalCohort}).
     */
    @Override
    protected CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        return HandOffRelease.send(this, ownerId, hold, (toField, toLeaseMs) -> services.scripts.run(
                Scripts.LOCK_HANDOFF, ScriptOutputType.INTEGER, lockKey, ownerField(ownerId), toField,
                Long.toString(toLeaseMs)),
                () -> services.scripts.run(Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER, lockKey,
                        ownerField(ownerId), Long.toString(leaseAfterRelease(hold)), services.publishCommand, channel,
                        countAfterReleaseArg(ownerId, hold), "release"));
    }

    @Override
    protected String wakeupChannel(long ownerId) {
        return channel;
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        services.renewer.discardAll(name);
        services.cohorts.cleared(name);
        CompletableFuture<Long> reply = services.scripts.run(Scripts.LOCK_FORCE_RELEASE, ScriptOutputType.INTEGER,
                lockKey, services.publishCommand, "0", channel);
        return mapErrors(reply.thenApply(removed -> removed != null && removed == 1L), "forceUnlock");
    }
}
