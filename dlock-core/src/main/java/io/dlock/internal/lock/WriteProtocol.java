package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.script.ScriptCall;
import io.dlock.internal.script.Scripts;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The protocol of the write side of a {@link ReadWriteRedisLock} ({@link io.dlock.LockKind#WRITE}; design notes
 * there). A hold is the writer field
 * {@code <client id>:<owner id>:write} with its count in the lock hash; the watchdog renews it like a plain lock's
 * field ({@link HashFieldRenewal}). While it waits, the writer keeps a mark in {@code dlock_rwlock_writers:{NAME}} so
 * that new dlock readers let it go first.
 */
final class WriteProtocol implements ReadWriteProtocol {
    /** {@code rwlock_write_acquire}'s answer when the owner holds only read holds. */
    private static final long UPGRADE_REFUSED = -3L;

    private final ReadWriteSide side;
    private final LockContext context;
    private final String[] acquireKeys;
    private final String[] handOffKeys;
    /** The read side: read holds handed to this client's waiting readers are its holds. */
    private final ReadProtocol readSide;

    WriteProtocol(LockContext context, ReadWriteKeys keys) {
        this.side = new ReadWriteSide(context, keys, ReadWriteSide.Side.WRITE);
        this.context = context;
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.waitingMarks()};
        this.handOffKeys = new String[] {keys.name(), keys.waitingMarks(), keys.timeoutRoot()};
        this.readSide = new ReadProtocol(new LockContext(context.services(), context.name(), LockKind.READ), keys);
    }

    /** The write hold is the owner's writer field. */
    @Override
    public ReadWriteSide side() {
        return side;
    }

    @Override
    public String holdField(long ownerId) {
        return side.writerField(ownerId);
    }

    /** A waiting writer keeps its mark, which holds new readers back, until a grant or a give-up. */
    @Override
    public Mark waitingMark() {
        return Mark.WRITER_MARK;
    }

    @Override
    public ScriptCall acquire(AcquireRequest request, long knownCount) {
        long ownerId = request.ownerId();
        String reader = side.readerField(ownerId);
        return ScriptCall.integer(Scripts.RWLOCK_WRITE_ACQUIRE, acquireKeys, Long.toString(request.effectiveLeaseMs()),
                side.writerField(ownerId), reader, Long.toString(request.waits() ? side.markLifeMs() : 0),
                Long.toString(knownCount), Long.toString(request.knownCounts().applyAsLong(reader)), request.held());
    }

    /**
     * A refused writer comes back before its mark runs out, even when the lock's TTL is longer.
     *
     * @throws IllegalMonitorStateException for a refused upgrade (the owner holds only read holds)
     */
    @Override
    public AcquireReply readAcquire(Object reply, AcquireRequest request) {
        AcquireReply read = AcquireReply.ofInteger((Long) reply);
        if (!(read instanceof AcquireReply.Busy busy)) {
            return read;
        }
        if (busy.sleepMs() == UPGRADE_REFUSED) {
            throw new IllegalMonitorStateException(describe() + ": owner " + side.readerField(request.ownerId())
                    + " holds the read lock but not the write lock; upgrading would wait forever (release the read "
                    + "holds first, or take the write lock first and then read)");
        }
        return request.waits() ? new AcquireReply.Busy(side.sleepWithMark(busy.sleepMs())) : busy;
    }

    @Override
    public ScriptCall dropUnknown(long ownerId, long leaseMs, long knownCount) {
        return ScriptCall.integer(Scripts.RWLOCK_WRITE_RELEASE, side.releaseKeys, side.writerField(ownerId),
                side.readerField(ownerId), Long.toString(leaseMs), context.publishCommand(), side.keys.channel(),
                Long.toString(knownCount), "drop-unknown").byText();
    }

    /**
     * Writers of this client wait behind a local writer inside the client, as owners of a plain lock do
     * ({@link LocalCohort}); readers wait behind it too ({@link ReadProtocol#localWait}).
     */
    @Override
    public LocalWait localWait() {
        return LocalWait.EXCLUSIVE;
    }

    @Override
    public ScriptCall release(long ownerId, Hold hold, String countAfter) {
        return ScriptCall.integer(Scripts.RWLOCK_WRITE_RELEASE, side.releaseKeys, side.writerField(ownerId),
                side.readerField(ownerId), Long.toString(context.leaseAfterRelease(hold)), context.publishCommand(),
                side.keys.channel(), countAfter, "release");
    }

    /**
     * When the owner's last write hold goes, the owner holds no read lock, and owners of this client wait behind it,
     * the lock is handed over in one call ({@code rwlock_write_handoff.lua}): to every waiting reader of the client at
     * once (their turn: they waited behind this write hold), else to the first waiting writer (mode "write"
     * throughout, nothing published), unless a reader of another client waits with its mark (the readers' turn: the
     * script moves nothing and the release goes through Redis). Consecutive writer hand-offs are capped and other
     * clients get their head start, exactly as for the plain lock, so Redisson readers and writers are not kept out
     * longer than behind a plain lock.
     */
    @Override
    public HandOff handOff(long ownerId, Hold hold, String countAfter) {
        String writer = side.writerField(ownerId);
        String reader = side.readerField(ownerId);
        return new HandOff() {
            /** Every waiting reader (the readers' turn), else the first waiting writer. */
            @Override
            public LocalLine.Pick pick() {
                return LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE;
            }

            /** A reader's hold is its reader field, renewed and recorded as a read hold. */
            @Override
            public HandOff.Receiver receiver(LocalWaiter waiter, long leaseMs) {
                return waiter.shared ? new HandOff.Receiver(side.readerField(waiter.ownerId), leaseMs, readSide)
                        : new HandOff.Receiver(side.writerField(waiter.ownerId), leaseMs, WriteProtocol.this);
            }

            @Override
            public ScriptCall call(List<HandOff.Receiver> receivers) {
                List<String> args = new ArrayList<>(List.of(writer, reader, context.publishCommand(),
                        side.keys.channel()));
                HandOff.Receiver first = receivers.get(0);
                if (first.grantedAs() == readSide) {
                    args.add("read");
                    for (HandOff.Receiver to : receivers) {
                        args.add(to.field());
                        args.add(Long.toString(to.leaseMs()));
                    }
                } else {
                    args.addAll(List.of("write", first.field(), readerOf(first.field()),
                            Long.toString(first.leaseMs())));
                }
                return ScriptCall.integer(Scripts.RWLOCK_WRITE_HANDOFF, handOffKeys, args.toArray(new String[0]));
            }

            @Override
            public HandOffRelease.Outcome read(Long reply) {
                return reply != null && reply >= 2L ? new HandOffRelease.Outcome.GrantedToAll()
                        : PlainProtocol.handOffOutcome(reply);
            }
        };
    }

    /** @return the reader field of the owner whose writer field is {@code writerField} */
    private static String readerOf(String writerField) {
        return writerField.substring(0, writerField.length() - ReadWriteKeys.WRITE_SUFFIX.length());
    }

    /** Sets the hash's TTL to the lease, or longer while one of the owner's own read holds lasts longer. */
    @Override
    public ScriptCall extend(long ownerId, long leaseMs) {
        return ScriptCall.integer(Scripts.RWLOCK_WRITE_EXTEND, side.releaseKeys, Long.toString(leaseMs),
                side.writerField(ownerId), side.readerField(ownerId));
    }

    @Override
    public CompletableFuture<Integer> holdCount(long ownerId) {
        return context.hashCount(side.writerField(ownerId));
    }
}
