package io.dlock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock shared across JVMs: readers share, writers exclude readers and writers. The write holder may
 * re-enter the write lock and also take the read lock (downgrade). Asking for the write lock while holding only read
 * holds would wait forever, so every acquiring method of {@link #writeLock()} throws
 * {@link IllegalMonitorStateException} instead.
 *
 * <p>Thread-safe; both views share one Redis hash named {@link #getName()}.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** @return the lock's name, which is also its Redis key */
    String getName();

    /**
     * The shared (read) side. Never blocks; cheap.
     *
     * <p><b>Writer preference, also for {@code tryLock()}.</b> While a dlock writer waits for the write lock (of any
     * client), a read acquisition that is not a re-entry does not get in: {@code tryLock()} returns {@code false} and
     * a timed or blocking acquisition waits until the writer has had its turn (or stopped waiting), even though only
     * readers hold the lock. A thread that already holds a read hold still re-enters, and the writer may still read.
     * This is where dlock differs from {@link java.util.concurrent.locks.ReentrantReadWriteLock}, whose read
     * {@code tryLock()} barges in whenever no writer <em>holds</em> the lock, waiting writers or not. On one JVM a
     * barging {@code tryLock} is a rare event; across many JVMs that poll with {@code tryLock()} (a scheduler on every
     * instance, a retry loop) readers can overlap without end, so a waiting writer would starve. The waiting writer
     * therefore leaves a mark in Redis that every dlock read acquisition honours (Redisson readers ignore it); see
     * {@code docs/protocol.md}, "Writer preference".
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
