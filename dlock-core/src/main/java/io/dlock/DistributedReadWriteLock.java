package io.dlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock shared across JVMs: readers share, writers exclude readers and writers. The write holder may
 * re-enter the write lock and also take the read lock (downgrade). Asking for the write lock while holding only read
 * holds would wait forever, so every acquiring method of {@link #writeLock()} throws
 * {@link IllegalMonitorStateException} instead.
 *
 * <p><b>Turns: neither side starves the other (phase-fair, among dlock clients).</b> Readers that waited behind
 * write holds for 50 ms (their patience) get in before the next writer: from then on, while such a reader waits, no
 * new writer is granted the lock (nor handed it by a writer of its client), so the next write release lets the
 * waiting readers in together, even when writers of several clients take the lock back to back. Within their
 * patience, writers go first (a writer of the client hands the lock to the next one in one script): a short wait of
 * the readers costs them little, and passing the lock among writers is what keeps a read-mostly mix with bursts of
 * writes cheap. A writer that waits behind read holds gets in before readers that come after it ({@link
 * #readLock()}): the readers in place finish and the writer enters. So under contention on both sides the lock
 * alternates: writers, then every reader that waited behind them, then the next writer. A waiting reader's wait is
 * bounded by its patience plus the write hold it then waits behind plus one (the one that may have been granted as
 * it claimed its turn), a waiting writer's by the read holds in place when it started to wait (and the writers ahead
 * of it).
 * Single attempts ({@code tryLock()}) leave no turn behind them. The turns are marks in Redis that only dlock reads:
 * Redisson's readers and writers keep their own behaviour and wire (a Redisson writer may take a free lock in the
 * readers' turn, a Redisson reader ignores waiting writers); a waiter whose client dies holds the other side back for
 * at most two thirds of the watchdog timeout. See {@code docs/protocol.md} §4.1, "Turns".
 *
 * <p>Thread-safe; both views share one Redis hash named {@link #getName()}.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** @return the lock's name, which is also its Redis key */
    String getName();

    /**
     * The shared (read) side. Never blocks; cheap.
     *
     * <p><b>Waiting writers go first, also for {@code tryLock()}.</b> While a dlock writer waits for the write lock (of
     * any client), a read acquisition that is not a re-entry does not get in: {@code tryLock()} returns
     * {@code false} and a timed or blocking acquisition waits until the writer has had its turn (or stopped waiting),
     * even though only readers hold the lock, unless it is the readers' turn (readers waited behind a write hold, see
     * the class comment). A thread that already holds a read hold still re-enters, and the writer may still read.
     * This is where dlock differs from {@link java.util.concurrent.locks.ReentrantReadWriteLock}, whose read
     * {@code tryLock()} barges in whenever no writer <em>holds</em> the lock, waiting writers or not. On one JVM a
     * barging {@code tryLock} is a rare event; across many JVMs that poll with {@code tryLock()} (a scheduler on every
     * instance, a retry loop) readers can overlap without end, so a waiting writer would starve. The waiting writer
     * therefore leaves a mark in Redis that every dlock read acquisition honours (Redisson readers ignore it). A
     * waiting reader is not starved in turn: refused by a write hold once its patience is over, it leaves a mark that
     * stops new dlock writers (see the class comment and {@code docs/protocol.md} §4.1, "Turns").
     *
     * @return the shared (read) side
     */
    @Override
    DistributedLock readLock();

    /** @return the exclusive (write) side */
    @Override
    DistributedLock writeLock();

    /**
     * This lock for {@code owner}: both sides act for it ({@link DistributedLock#as}), so that one owner's read and
     * write holds can be taken, downgraded and released from any thread. Never blocks; cheap.
     *
     * @throws NullPointerException when {@code owner} is null
     */
    DistributedReadWriteLock as(LockOwner owner);
}
