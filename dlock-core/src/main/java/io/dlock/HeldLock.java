package io.dlock;

import java.time.Duration;
import java.util.Objects;

/**
 * One hold of a {@link LockClient}, as the client itself knows it (no round trip): see {@link LockClient#heldLocks()}.
 *
 * @param name               the lock's name
 * @param kind               which kind of lock is held
 * @param ownerId            the owner of the hold: a thread id for a lock object, {@link LockOwner#id()} for a view
 *                           of {@link DistributedLock#as}
 * @param holdCount          how many times the owner holds it (re-entries included)
 * @param leaseValidFor      how much longer the hold is known to be valid, as {@link DistributedLock#leaseValidFor()}
 *                           says; positive
 * @param renewedByWatchdog  whether the watchdog renews the hold (at least one acquisition without a lease)
 */
public record HeldLock(String name, Kind kind, long ownerId, int holdCount, Duration leaseValidFor,
                       boolean renewedByWatchdog) {

    /** The kind of lock a hold belongs to. */
    public enum Kind {
        /** {@link LockClient#getLock(String)} */
        LOCK,
        /** {@link LockClient#getFairLock(String)} */
        FAIR,
        /** {@link LockClient#getFencedLock(String)} */
        FENCED,
        /** the read side of {@link LockClient#getReadWriteLock(String)} */
        READ,
        /** the write side of {@link LockClient#getReadWriteLock(String)} */
        WRITE
    }

    public HeldLock {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(leaseValidFor, "leaseValidFor");
    }
}
