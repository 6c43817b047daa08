package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.AcquireLoop;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

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
    private final LockServices services;
    private final String name;
    private final String[] acquireKeys;
    private final String[] handOffKeys;
    /** Where read holds handed to this client's waiting readers are recorded. */
    private final LockContext readContext;

    WriteProtocol(LockContext context, ReadWriteKeys keys) {
        this.side = new ReadWriteSide(context, keys, ReadWriteSide.Side.WRITE);
        this.context = context;
        this.services = context.services();
        this.name = context.name();
        this.acquireKeys = new String[] {keys.name(), keys.timeoutRoot(), keys.waitingMarks()};
        this.handOffKeys = new String[] {keys.name(), keys.waitingMarks(), keys.timeoutRoot()};
        this.readContext = new LockContext(services, name, io.dlock.LockKind.READ);
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

    @Override
    public CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis) {
        String writer = side.writerField(ownerId);
        String reader = side.readerField(ownerId);
        boolean waits = waitMillis != 0;
        HoldId id = new HoldId(name, writer);
        if (waits) {
            services.holds.mark(id, Mark.WRITER_MARK);
        }
        return context.attempt(id, ownerId, leaseMs, services.hashFieldRenewal,
                (known, held) -> services.scripts.run(Scripts.RWLOCK_WRITE_ACQUIRE, ScriptOutputType.INTEGER,
                        acquireKeys, Long.toString(context.effectiveLease(leaseMs)), writer, reader,
                        Long.toString(waits ? side.markLifeMs() : 0), Long.toString(known),
                        Long.toString(services.holds.knownCount(new HoldId(name, reader))), held),
                new LockContext.AcquireReplies() {
                    @Override
                    public void granted(Hold hold) {
                        services.cohorts.acquired(name, ownerId, hold);
                    }

                    /** The writer no longer waits: its mark goes. */
                    @Override
                    public void ended() {
                        services.holds.unmark(id, Mark.WRITER_MARK);
                    }

                    /** @throws IllegalMonitorStateException for a refused upgrade */
                    @Override
                    public Long busy(long ttl) {
                        if (ttl == UPGRADE_REFUSED) {
                            ended();
                            throw new IllegalMonitorStateException(describe() + ": owner "
                                    + side.readerField(ownerId) + " holds the read lock but not the write lock; "
                                    + "upgrading would wait forever (release the read holds first, or take the "
                                    + "write lock first and then read)");
                        }
                        // Come back before the mark runs out, even when the lock's TTL is longer.
                        return waits ? side.sleepWithMark(ttl) : ttl;
                    }
                });
    }

    /**
     * Withdraws the waiting mark (and wakes readers held back only by it), and after an attempt whose reply never came
     * drops the write hold that attempt may have taken; failures are left to the mark's expiry and the hold's lease.
     */
    @Override
    public CompletableFuture<Void> giveUp(long ownerId) {
        String writer = side.writerField(ownerId);
        HoldId id = new HoldId(name, writer);
        return side.withdrawMark(id, Mark.WRITER_MARK, writer).thenCompose(ignored -> services.pending.dropIfUnanswered(
                id,
                (lease, known) -> services.scripts.runByText(Scripts.RWLOCK_WRITE_RELEASE, ScriptOutputType.INTEGER,
                        side.releaseKeys, writer, side.readerField(ownerId), Long.toString(lease),
                        services.publishCommand, side.keys.channel(), Long.toString(known), "drop-unknown")));
    }

    /**
     * Writers of this client wait behind a local writer inside the client, as owners of a plain lock do
     * ({@link LocalCohort}); readers never do (they share the lock and wait on the channel).
     */
    @Override
    public LocalGate localGate(long ownerId, long leaseMs) {
        return new CohortGate(services.cohorts, name, ownerId, leaseMs);
    }

    /**
     * Releases one write hold of {@code ownerId}; when it is the owner's last, the owner holds no read lock, and owners
     * of this client wait behind it, hands the lock over in one call ({@code rwlock_write_handoff.lua}): to every
     * waiting reader of the client at once (their turn: they waited behind this write hold), else to the first waiting
     * writer (mode "write" throughout, nothing published), unless a reader of another client waits with its mark (the
     * readers' turn: the script moves nothing and the release goes through Redis). Consecutive writer hand-offs are
     * capped and other clients get their head start, exactly as for the plain lock, so Redisson readers and writers
     * are not kept out longer than behind a plain lock.
     */
    @Override
    public CompletableFuture<Long> release(long ownerId, Hold hold) {
        String writer = side.writerField(ownerId);
        String reader = side.readerField(ownerId);
        return HandOffRelease.send(this, ownerId, hold, new HandOffRelease.HandOffScript() {
            @Override
            public CompletableFuture<HandOffRelease.Outcome> send(List<HandOffRelease.Receiver> receivers) {
                List<String> args = new ArrayList<>(List.of(writer, reader, services.publishCommand,
                        side.keys.channel()));
                HandOffRelease.Receiver first = receivers.get(0);
                boolean toReaders = first.grantedIn() == readContext;
                if (toReaders) {
                    args.add("read");
                    for (HandOffRelease.Receiver to : receivers) {
                        args.add(to.field());
                        args.add(Long.toString(to.leaseMs()));
                    }
                } else {
                    args.addAll(List.of("write", first.field(), readerOf(first.field()),
                            Long.toString(first.leaseMs())));
                }
                return services.scripts.<Long>run(Scripts.RWLOCK_WRITE_HANDOFF, ScriptOutputType.INTEGER,
                        handOffKeys, args.toArray(new String[0])).thenApply(reply -> reply != null && reply >= 2L
                        ? new HandOffRelease.Outcome.GrantedToAll() : PlainProtocol.handOffOutcome(reply));
            }

            /** Every waiting reader (the readers' turn), else the first waiting writer. */
            @Override
            public LocalLine.Pick pick() {
                return LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE;
            }

            /** A reader's hold is its reader field, renewed as a read hold and recorded as one. */
            @Override
            public HandOffRelease.Receiver receiver(LockProtocol protocol, LocalWaiter waiter, long leaseMs) {
                if (!waiter.shared) {
                    return HandOffRelease.HandOffScript.super.receiver(protocol, waiter, leaseMs);
                }
                return new HandOffRelease.Receiver(side.readerField(waiter.ownerId), leaseMs,
                        services.readHoldRenewal, readContext);
            }

            /** The hand-off removed the receiver's waiting mark in Redis (a writer's, or a reader's). */
            @Override
            public void handedTo(long receiverId) {
                services.holds.unmark(new HoldId(name, side.writerField(receiverId)), Mark.WRITER_MARK);
                services.holds.unmark(new HoldId(name, side.readerField(receiverId)), Mark.READER_MARK);
            }
        }, () -> services.scripts.run(Scripts.RWLOCK_WRITE_RELEASE, ScriptOutputType.INTEGER, side.releaseKeys,
                        writer, reader, Long.toString(context.leaseAfterRelease(hold)), services.publishCommand,
                        side.keys.channel(), context.countAfterRelease(new HoldId(name, writer), hold), "release"));
    }

    /** @return the reader field of the owner whose writer field is {@code writerField} */
    private static String readerOf(String writerField) {
        return writerField.substring(0, writerField.length() - ReadWriteKeys.WRITE_SUFFIX.length());
    }

    /** Sets the hash's TTL to the lease, or longer while one of the owner's own read holds lasts longer. */
    @Override
    public CompletableFuture<Long> extend(long ownerId, long leaseMs) {
        return services.scripts.run(Scripts.RWLOCK_WRITE_EXTEND, ScriptOutputType.INTEGER, side.releaseKeys,
                Long.toString(leaseMs), side.writerField(ownerId), side.readerField(ownerId));
    }

    @Override
    public CompletableFuture<Integer> holdCount(long ownerId) {
        return context.hashCount(side.writerField(ownerId));
    }
}
