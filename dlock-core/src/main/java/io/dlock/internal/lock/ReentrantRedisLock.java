package io.dlock.internal.lock;

import io.dlock.internal.LockNames;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The reentrant, non-fair lock, wire-compatible with Redisson's {@code RLock}.
 *
 * <h2>Key layout (redisson-protocol.md §2)</h2>
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
 *
 * <h2>Leases</h2>
 * Each acquisition (re-entries included) resets the TTL to its lease; a partial release resets it to the lease of
 * the remaining innermost acquisition, or to the watchdog timeout while any remaining one is watchdog-renewed.
 */
public final class ReentrantRedisLock extends AbstractDistributedLock {
    private final String[] lockKey;
    private final String[] releaseKeys;

    public ReentrantRedisLock(LockServices services, String name) {
        super(services, LockNames.requireValid(name));
        this.lockKey = new String[] {name};
        this.releaseKeys = new String[] {name, LockNames.lockChannel(name)};
    }

    @Override
    protected CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String field = ownerField(ownerId);
        long effectiveLease = leaseMs == LEASE_WATCHDOG ? services.renewer.watchdogMs() : leaseMs;
        long sentAt = services.renewer.nanoTime();
        CompletableFuture<Long> reply = services.scripts.run(Scripts.LOCK_ACQUIRE, ScriptOutputType.INTEGER, lockKey,
                Long.toString(effectiveLease), field);
        return reply.thenApply(ttl -> {
            if (ttl == null) {
                services.renewer.acquired(name, name, field, ownerId, leaseMs, sentAt, services.hashFieldRenewal);
            }
            return ttl;
        });
    }

    @Override
    protected CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        long lease = hold != null ? hold.leaseAfterPartialRelease(services.renewer.watchdogMs())
                : services.renewer.watchdogMs();
        return services.scripts.run(Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER, releaseKeys, ownerField(ownerId),
                Long.toString(lease), services.publishCommand);
    }

    @Override
    protected String wakeupChannel(long ownerId) {
        return releaseKeys[1];
    }

    @Override
    protected CompletableFuture<Boolean> forceRelease() {
        services.renewer.discardAll(name);
        CompletableFuture<Long> reply = services.scripts.run(Scripts.LOCK_FORCE_RELEASE, ScriptOutputType.INTEGER,
                releaseKeys, services.publishCommand, "0");
        return mapErrors(reply.thenApply(removed -> removed != null && removed == 1L), "forceUnlock");
    }
}
