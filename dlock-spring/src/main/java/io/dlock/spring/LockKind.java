package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockClient;

/** Which dlock lock a {@link DistributedLocked} method runs under. */
public enum LockKind {
    /** {@link LockClient#getLock(String)}: reentrant, not fair. */
    PLAIN,
    /** {@link LockClient#getFairLock(String)}: reentrant, granted in FIFO order among waiters of every instance. */
    FAIR,
    /** The shared side of {@link LockClient#getReadWriteLock(String)}: READ methods run together, not with WRITE. */
    READ,
    /** The exclusive side of {@link LockClient#getReadWriteLock(String)}: excludes READ and WRITE methods. */
    WRITE;

    /** @return the lock of this kind named {@code name}; cheap, no round trip */
    DistributedLock of(LockClient client, String name) {
        return switch (this) {
            case PLAIN -> client.getLock(name);
            case FAIR -> client.getFairLock(name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
        };
    }
}
