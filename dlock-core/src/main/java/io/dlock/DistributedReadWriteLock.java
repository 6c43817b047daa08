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

    /** @return the shared (read) side */
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
