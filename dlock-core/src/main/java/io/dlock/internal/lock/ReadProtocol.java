package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.AcquireLoop;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;

/**
 * The protocol of the read side of a {@link ReadWriteRedisLock} ({@link io.dlock.LockKind#READ}; design notes there).
 * A hold is the reader field {@code <client id>:<owner id>} with its count, plus one timeout key per acquisition; the
 * watchdog renews them through {@link ReadHoldRenewal}. A reader that may wait and is refused because another owner
 * holds the write lock leaves a mark in {@code dlock_rwlock_writers:{NAME}} (the readers' turn, see
 * {@link ReadWriteRedisLock}): new dlock writers then wait, so the next write release lets the readers in.
 */
final class ReadProtocol implements ReadWriteProtocol {
    private final ReadWriteSide side;
    private final LockContext context;
    private final LockServices services;
    private final String name;
    private final String[] acquireKeys;

    ReadProtocol(LockContext context, ReadWriteKeys keys) {
        this.side = new ReadWriteSide(context, keys, ReadWriteSide.Side.READ);
        this.context = context;
        this.services = context.services();
        this.name = context.name();
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.waitingMarks()};
    }

    @Override
    public ReadWriteSide side() {
        return side;
    }

    @Override
    public CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String reader = side.readerField(ownerId);
        boolean waits = waitMillis != 0;
        HoldId id = new HoldId(name, reader);
        // a waiting reader claims the readers' turn (a mark, when a write hold refuses it) once its patience is over
        long patienceLeftNanos = waits ? ReadWriteSide.READERS_PATIENCE_NANOS
                - services.holds.markSince(id, Mark.READER_MARK, services.renewer.nanoTime()) : 0;
        boolean marks = waits && patienceLeftNanos <= 0;
        return context.attempt(id, ownerId, leaseMs, services.readHoldRenewal,
                (known, held) -> services.scripts.run(Scripts.RWLOCK_READ_ACQUIRE, ScriptOutputType.INTEGER,
                        acquireKeys, Long.toString(context.effectiveLease(leaseMs)), reader,
                        side.writerField(ownerId), Long.toString(known), held,
                        Long.toString(marks ? side.markLifeMs() : 0)),
                new LockContext.AcquireReplies() {
                    /** The reader no longer waits: a grant removed its mark. */
                    @Override
                    public void ended() {
                        services.holds.unmark(id, Mark.READER_MARK);
                    }

                    /**
                     * Comes back before a mark it may have left runs out, even when the lock's TTL is longer; and,
                     * still patient, once its patience is over, to claim the turn then.
                     */
                    @Override
                    public Long busy(long ttl) {
                        if (!waits) {
                            return ttl;
                        }
                        long sleep = side.sleepWithMark(ttl);
                        return marks ? sleep : Math.min(sleep,
                                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(patienceLeftNanos) + 1);
                    }
                });
    }

    /**
     * A reader waits inside the client while another owner of the client holds the write lock (a read could not be
     * granted then anyway), and gets its read hold from that writer's release, together with the client's other
     * waiting readers, ahead of the client's waiting writers: readers that waited behind a write hold have the next
     * turn, as in Redis ({@link WriteProtocol#release}).
     */
    @Override
    public LocalGate localGate(long ownerId, long leaseMs) {
        return new CohortGate(services.cohorts, name, ownerId, leaseMs, Long.MAX_VALUE, () -> true, true);
    }

    /**
     * Withdraws the reader's waiting mark if it may have left one (and wakes writers held back only by reader marks),
     * and after an attempt whose reply never came drops the read hold that attempt may have taken.
     */
    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        String reader = side.readerField(ownerId);
        HoldId id = new HoldId(name, reader);
        return side.withdrawMark(id, Mark.READER_MARK, reader).thenCompose(ignored -> services.pending
                .dropIfUnanswered(id, (lease, known) -> services.scripts
                .runByText(Scripts.RWLOCK_READ_RELEASE, ScriptOutputType.INTEGER, side.releaseKeys, reader,
                        services.publishCommand, side.keys.channel(), Long.toString(known), "drop-unknown")));
    }

    @Override
    public CompletableFuture<Long> release(long ownerId, Hold hold) {
        String reader = side.readerField(ownerId);
        return services.scripts.run(Scripts.RWLOCK_READ_RELEASE, ScriptOutputType.INTEGER, side.releaseKeys,
                reader, services.publishCommand, side.keys.channel(),
                context.countAfterRelease(new HoldId(name, reader), hold), "release");
    }

    /** Extends each live read hold of the owner; the hash keeps the TTL of its longest live read hold. */
    @Override
    public CompletableFuture<Long> extend(long ownerId, long leaseMs) {
        return services.scripts.run(Scripts.RWLOCK_READ_EXTEND, ScriptOutputType.INTEGER, side.releaseKeys,
                Long.toString(leaseMs), side.readerField(ownerId));
    }

    @Override
    public CompletableFuture<Integer> holdCount(long ownerId) {
        return context.hashCount(side.readerField(ownerId));
    }
}
