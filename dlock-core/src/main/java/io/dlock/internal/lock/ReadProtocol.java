package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
    private final String[] acquireKeys;

    ReadProtocol(LockContext context, ReadWriteKeys keys) {
        this.side = new ReadWriteSide(context, keys, ReadWriteSide.Side.READ);
        this.context = context;
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.waitingMarks()};
    }

    @Override
    public ReadWriteSide side() {
        return side;
    }

    /** Read holds are renewed with their timeout keys, in one batch per client. */
    @Override
    public RenewalSender renewal() {
        return context.services().redis().readHoldRenewal();
    }

    /** A waiting reader's claim of the readers' turn, left in Redis once its patience is over. */
    @Override
    public Mark waitingMark() {
        return Mark.READER_MARK;
    }

    /** A waiting reader claims the readers' turn (a mark, when a write hold refuses it) once its patience is over. */
    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        long ownerId = request.ownerId();
        return ScriptCall.integer(Scripts.RWLOCK_READ_ACQUIRE, acquireKeys, Long.toString(request.effectiveLeaseMs()),
                side.readerField(ownerId), side.writerField(ownerId), Long.toString(knownCount), request.held(),
                Long.toString(request.waits() && patienceLeftNanos(request) <= 0 ? side.markLifeMs() : 0));
    }

    /** @return how long the reader stays patient (ns; 0 or less once it claims the turn, or when it does not wait) */
    private static long patienceLeftNanos(AcquireRequest request) {
        return request.waits() ? ReadWriteSide.READERS_PATIENCE_NANOS - request.waitedNanos() : 0;
    }

    /**
     * A refused reader comes back before a mark it may have left runs out, even when the lock's TTL is longer; and,
     * still patient, once its patience is over, to claim the turn then.
     */
    @Override
    public AcquireReply readAcquire(Object reply, AcquireRequest request) {
        AcquireReply read = AcquireReply.ofInteger((Long) reply);
        if (!(read instanceof AcquireReply.Busy busy) || !request.waits()) {
            return read;
        }
        long sleep = side.sleepWithMark(busy.sleepMs());
        long patienceLeft = patienceLeftNanos(request);
        return new AcquireReply.Busy(patienceLeft <= 0 ? sleep
                : Math.min(sleep, TimeUnit.NANOSECONDS.toMillis(patienceLeft) + 1));
    }

    /**
     * A reader waits inside the client while another owner of the client holds the write lock (a read could not be
     * granted then anyway), and gets its read hold from that writer's release, together with the client's other
     * waiting readers, ahead of the client's waiting writers: readers that waited behind a write hold have the next
     * turn, as in Redis ({@link WriteProtocol#handOff}).
     */
    @Override
    public LocalWait localWait() {
        return new LocalWait(true, Long.MAX_VALUE, false);
    }

    @Override
    public ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount) {
        return ScriptCall.integer(Scripts.RWLOCK_READ_RELEASE, side.releaseKeys, side.readerField(ownerId),
                context.publishCommand(), side.keys.channel(), Long.toString(knownCount), "drop-unknown").byText();
    }

    @Override
    public ScriptCall release(long ownerId, Hold hold, String countAfter) {
        return ScriptCall.integer(Scripts.RWLOCK_READ_RELEASE, side.releaseKeys, side.readerField(ownerId),
                context.publishCommand(), side.keys.channel(), countAfter, "release");
    }

    /** Extends each live read hold of the owner; the hash keeps the TTL of its longest live read hold. */
    @Override
    public ScriptCall extend(long ownerId, long leaseMs) {
        return ScriptCall.integer(Scripts.RWLOCK_READ_EXTEND, side.releaseKeys, Long.toString(leaseMs),
                side.readerField(ownerId));
    }

    @Override
    public CompletableFuture<Integer> holdCount(long ownerId) {
        return context.hashCount(side.readerField(ownerId));
    }
}
