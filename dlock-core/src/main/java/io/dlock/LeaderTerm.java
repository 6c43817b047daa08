package io.dlock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

/**
 * One term of a leader ({@link LeaderElection}): from the win of the fenced lock to its revocation. Thread-safe; the
 * methods never block and make no round trip.
 */
public interface LeaderTerm {

    /**
     * @return the epoch: the fencing token of the win ({@link FencedLock}), greater than the epoch of every earlier
     *         term of the election's name, also across client restarts and the loss of the counter
     */
    long epoch();

    /** @return when the term began, by the wall clock of this JVM */
    Instant since();

    /**
     * @return whether the term is valid now: not revoked, and within both the renew deadline counted from the last
     *         confirmed renewal's send and the lock's own known validity ({@link DistributedLock#leaseValidFor()})
     */
    boolean isValid();

    /** @return how much longer the term is known valid, or {@link Duration#ZERO} */
    Duration validFor();

    /**
     * The guard to call right before each side effect of the leader.
     *
     * @return the {@linkplain #epoch() epoch}, to pass along with the side effect
     * @throws LockLostException when the term is no longer valid (the message names the election, the epoch and why)
     */
    long requireValid();

    /**
     * @return completes with the cause exactly once, when the term is revoked (before the task is stopped and the lock
     *         released); never completes exceptionally
     */
    CompletableFuture<Cause> revocationAsync();

    /** Why a term ended. */
    enum Cause {
        /** {@link LeaderElection#resign()} was called. */
        RESIGNED,
        /** {@link LeaderElection#close()} (or the client's close) was called. */
        CLOSED,
        /** Renewals failed (Redis unavailable or not answering) until the renew deadline passed. */
        CONNECTION_LOST,
        /** Redis no longer had the hold: its lease ran out there, a {@code forceUnlock}, a restart or a failover. */
        LEASE_LOST,
        /**
         * The renew deadline passed without a renewal having been tried in time: the process was frozen or starved
         * (a {@code SIGSTOP}, a long GC pause, an overloaded host).
         */
        PAUSED,
        /** The task of {@link LeaderElection#runWhileLeader} returned. */
        TASK_ENDED,
        /** The task of {@link LeaderElection#runWhileLeader} threw. */
        TASK_FAILED
    }
}
