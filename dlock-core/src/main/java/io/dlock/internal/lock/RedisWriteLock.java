package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The write side of a {@link ReadWriteRedisLock} (design notes there). A hold is the writer field
 * {@code <client id>:<owner id>:write} with its count in the lock hash; the watchdog renews it like a plain lock's
 * field ({@link HashFieldRenewal}). While it waits, the writer keeps a mark in {@code dlock_rwlock_writers:{NAME}} so
 * that new dlock readers let it go first.
 */
final class RedisWriteLock extends ReadWriteSide {
    /** {@code rwlock_write_acquire}'s answer when the owner holds only read holds. */
    private static final long UPGRADE_REFUSED = -3L;

    private final String[] acquireKeys;
    private final String[] withdrawKeys;

    RedisWriteLock(LockServices services, ReadWriteKeys keys) {
        super(services, keys, LockKind.WRITE);
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.writerMarks()};
        this.withdrawKeys = new String[] {keys.writerMarks(), keys.name()};
    }

    /** How often a waiting writer attempts (and so refreshes its mark) at least: a third of the watchdog timeout. */
    private long markRefreshMs() {
        return Math.max(1, services.renewer.watchdogMs() / 3);
    }

    @Override
    protected CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String writer = writerField(ownerId);
        String reader = readerField(ownerId);
        boolean waits = waitMillis != 0;
        long refreshMs = markRefreshMs();
        HoldId id = holdId(ownerId);
        if (waits) {
            services.holds.mark(id, Mark.WRITER_MARK);
        }
        long sentAt = services.renewer.nanoTime();
        return services.pending.<Long>track(id,
                known -> services.scripts.run(Scripts.RWLOCK_WRITE_ACQUIRE, ScriptOutputType.INTEGER, acquireKeys,
                        Long.toString(effectiveLease(leaseMs)), writer, reader,
                        Long.toString(waits ? 2 * refreshMs : 0), Long.toString(known),
                        Long.toString(services.holds.knownCount(new HoldId(name, reader)))),
                ttl -> onReply(ttl, ownerId, leaseMs, sentAt, waits, refreshMs));
    }

    /** @return null when acquired (recorded), else how long to sleep at most; throws on a refused upgrade */
    private Long onReply(Long ttl, long ownerId, long leaseMs, long sentAt, boolean waits, long refreshMs) {
        if (ttl == null) {
            services.holds.unmark(holdId(ownerId), Mark.WRITER_MARK);
            services.renewer.acquired(kind(), name, name, writerField(ownerId), ownerId, leaseMs, sentAt,
                    services.hashFieldRenewal);
            return null;
        }
        if (ttl == UPGRADE_REFUSED) {
            services.holds.unmark(holdId(ownerId), Mark.WRITER_MARK);
            throw new IllegalMonitorStateException("lock '" + name + "': owner " + readerField(ownerId)
                    + " holds the read lock but not the write lock; upgrading would wait forever (release the"
                    + " read holds first, or take the write lock first and then read)");
        }
        // Come back before the mark runs out, even when the lock's TTL is longer.
        return waits ? (ttl < 0 ? refreshMs : Math.min(ttl, refreshMs)) : ttl;
    }

    /**
     * Withdraws the waiting mark (and wakes readers held back only by it), and after an attempt whose reply never came
     * drops the write hold that attempt may have taken; failures are left to the mark's expiry and the hold's lease.
     */
    @Override
    protected CompletableFuture<Void> giveUp(long ownerId) {
        String writer = writerField(ownerId);
        CompletableFuture<Void> withdrawn = CompletableFuture.completedFuture(null);
        if (services.holds.unmark(holdId(ownerId), Mark.WRITER_MARK)) {
            withdrawn = services.scripts.<Long>run(Scripts.RWLOCK_WRITER_WITHDRAW, ScriptOutputType.INTEGER,
                    withdrawKeys, writer, services.publishCommand, keys.channel()).handle((removed, error) -> null);
        }
        return withdrawn.thenCompose(ignored -> services.pending.dropIfUnanswered(holdId(ownerId),
                (lease, known) -> services.scripts.runByText(Scripts.RWLOCK_WRITE_RELEASE, ScriptOutputType.INTEGER,
                        releaseKeys, writer, readerField(ownerId), Long.toString(lease), services.publishCommand,
                        keys.channel(), Long.toString(known), "drop-unknown")));
    }

    @Override
    protected CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        String writer = writerField(ownerId);
        long lease = hold != null ? hold.leaseAfterPartialRelease(services.renewer.watchdogMs())
                : services.renewer.watchdogMs();
        return services.scripts.run(Scripts.RWLOCK_WRITE_RELEASE, ScriptOutputType.INTEGER, releaseKeys,
                writer, readerField(ownerId), Long.toString(lease), services.publishCommand, keys.channel(),
                countAfterReleaseArg(ownerId, hold), "release");
    }

    /** Sets the hash's TTL to the lease, or longer while one of the owner's own read holds lasts longer. */
    @Override
    protected CompletableFuture<Long> sendExtend(long ownerId, long leaseMs) {
        return services.scripts.run(Scripts.RWLOCK_WRITE_EXTEND, ScriptOutputType.INTEGER, releaseKeys,
                Long.toString(leaseMs), writerField(ownerId), readerField(ownerId));
    }

    @Override
    int side() {
        return WRITE_LOCKED;
    }

    @Override
    String sideName() {
        return "write";
    }

    @Override
    protected String holdField(long ownerId) {
        return writerField(ownerId);
    }
}
