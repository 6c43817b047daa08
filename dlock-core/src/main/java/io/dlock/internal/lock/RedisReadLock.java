package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The read side of a {@link ReadWriteRedisLock} (design notes there). A hold is the reader field
 * {@code <client id>:<owner id>} with its count, plus one timeout key per acquisition; the watchdog renews them through
 * {@link ReadHoldRenewal}.
 */
final class RedisReadLock extends ReadWriteSide {
    private final String[] acquireKeys;

    RedisReadLock(LockServices services, ReadWriteKeys keys) {
        super(services, keys, LockKind.READ);
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.writerMarks()};
    }

    @Override
    protected CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String reader = readerField(ownerId);
        long sentAt = services.renewer.nanoTime();
        return services.pending.<Long>track(holdId(ownerId),
                known -> services.scripts.run(Scripts.RWLOCK_READ_ACQUIRE, ScriptOutputType.INTEGER, acquireKeys,
                        Long.toString(effectiveLease(leaseMs)), reader, writerField(ownerId), Long.toString(known)),
                sleepMs -> {
                    if (sleepMs == null) {
                        services.renewer.acquired(kind(), name, name, reader, ownerId, leaseMs, sentAt,
                                services.readHoldRenewal);
                    }
                    return sleepMs;
                });
    }

    /** After an attempt whose reply never came, drops the read hold that attempt may have taken. */
    @Override
    protected CompletableFuture<Void> giveUp(long ownerId) {
        return services.pending.dropIfUnanswered(holdId(ownerId), (lease, known) -> services.scripts.runByText(
                Scripts.RWLOCK_READ_RELEASE, ScriptOutputType.INTEGER, releaseKeys, readerField(ownerId),
                services.publishCommand, keys.channel(), Long.toString(known), "drop-unknown"));
    }

    @Override
    protected CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        String reader = readerField(ownerId);
        return services.scripts.run(Scripts.RWLOCK_READ_RELEASE, ScriptOutputType.INTEGER, releaseKeys,
                reader, services.publishCommand, keys.channel(),
                countAfterReleaseArg(ownerId, hold), "release");
    }

    /** Extends each live read hold of the owner; the hash keeps the TTL of its longest live read hold. */
    @Override
    protected CompletableFuture<Long> sendExtend(long ownerId, long leaseMs) {
        return services.scripts.run(Scripts.RWLOCK_READ_EXTEND, ScriptOutputType.INTEGER, releaseKeys,
                Long.toString(leaseMs), readerField(ownerId));
    }

    @Override
    int side() {
        return READ_LOCKED;
    }

    @Override
    String sideName() {
        return "read";
    }

    @Override
    protected String holdField(long ownerId) {
        return readerField(ownerId);
    }
}
