package io.dlock.reactor;

import io.dlock.DistributedReadWriteLock;

/**
 * A read-write lock for Reactor pipelines, over {@link DistributedReadWriteLock} (Redisson's
 * {@code RReadWriteLock} wire): many readers or one writer. Each side is a {@link ReactiveLock}, with its contract:
 * each subscription acquires for a new owner of its own, so a subscription holding the write side and another
 * asking for the read side exclude each other (an owner may only take the read side under its own write hold, and a
 * subscription is never the owner of another's hold). Thread-safe and cheap.
 */
public final class ReactiveReadWriteLock {
    private final DistributedReadWriteLock lock;
    private final ReactiveLock read;
    private final ReactiveLock write;

    ReactiveReadWriteLock(DistributedReadWriteLock lock, ReactiveLock read, ReactiveLock write) {
        this.lock = lock;
        this.read = read;
        this.write = write;
    }

    /** @return the lock's name */
    public String getName() {
        return lock.getName();
    }

    /** @return the shared side: readers hold it together, while no writer holds or waits */
    public ReactiveLock readLock() {
        return read;
    }

    /** @return the exclusive side */
    public ReactiveLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "ReactiveReadWriteLock[" + getName() + "]";
    }
}
