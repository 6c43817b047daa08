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
    protected CompletableFuture<Void> release(long ownerId) {
        String field = ownerField(ownerId);
        Hold hold = services.renewer.find(name, field);
        long lease = hold != null ? hold.leaseAfterPartialRelease(services.renewer.watchdogMs())
                : services.renewer.watchdogMs();
        if (hold != null) {
            services.renewer.releaseStarted(hold);
        }
        CompletableFuture<Long> reply = services.scripts.run(Scripts.LOCK_RELEASE, ScriptOutputType.INTEGER,
                releaseKeys, field, Long.toString(lease), services.publishCommand);
        return reply.handle((released, error) -> {
            if (error != null) {
                if (hold != null) {
                    services.renewer.releaseFailed(hold);
                }
                throw io.dlock.internal.Errors.toApi(error, name, "unlock");
            }
            if (released == null) {
                if (hold != null) {
                    services.renewer.releaseFailed(hold);
                    services.renewer.discard(hold);
                }
                throw notHeld(field);
            }
            if (hold != null) {
                services.renewer.releaseDone(hold, released == 1L);
            }
            return null;
        });
    }

    private IllegalMonitorStateException notHeld(String field) {
        return new IllegalMonitorStateException("lock '" + name + "' is not held by owner " + field
                + " (never acquired, already released, or its lease expired)");
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

    @Override
    protected CompletableFuture<Boolean> lockedRaw() {
        return mapErrors(services.redis.exists(name).toCompletableFuture().thenApply(n -> n != null && n > 0),
                "isLocked");
    }

    @Override
    protected CompletableFuture<Long> ttlRaw() {
        return mapErrors(services.redis.pttl(name).toCompletableFuture(), "remainTimeToLive");
    }

    @Override
    protected CompletableFuture<Integer> holdCountRaw(long ownerId) {
        return mapErrors(services.redis.hget(name, ownerField(ownerId)).toCompletableFuture()
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count)), "getHoldCount");
    }

    @Override
    protected String holdKey() {
        return name;
    }

    @Override
    protected String holdField(long ownerId) {
        return ownerField(ownerId);
    }
}
