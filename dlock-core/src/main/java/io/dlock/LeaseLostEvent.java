package io.dlock;

import java.time.Instant;
import java.util.Objects;

/**
 * A hold that was lost.
 *
 * @param lockName the lock's name
 * @param ownerId  the owner id of the hold: a thread id for a lock object, {@link LockOwner#id()} for a view of
 *                 {@link DistributedLock#as}
 * @param reason   why the hold counts as lost
 * @param at       when this client found out
 */
public record LeaseLostEvent(String lockName, long ownerId, Reason reason, Instant at) {

    public LeaseLostEvent {
        Objects.requireNonNull(lockName, "lockName");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
    }

    /** Why a hold counts as lost. */
    public enum Reason {
        /** The lease ran out before renewal or release: a fixed lease ended, or Redis expired the key. */
        EXPIRED,
        /** The hold was gone while its lease should still have been running: deleted, force-unlocked, lost by Redis. */
        REMOVED,
        /**
         * Renewals kept failing (Redis unreachable) until the lease had run out, or renewal stopped for good because
         * the client was closed while the hold was live (it then ends in Redis when its lease runs out).
         */
        RENEWAL_FAILED
    }
}
