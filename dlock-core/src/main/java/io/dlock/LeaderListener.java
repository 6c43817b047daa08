package io.dlock;

/**
 * Told when a {@link LeaderElection}'s candidate becomes leader and when its term ends, and who leads the election
 * (this candidate or another). Every call comes on the election's own event thread, one at a time, {@code revoked}
 * after the {@code elected} of the same term and exactly once per term. A listener that throws is logged and does not
 * stop the others.
 */
public interface LeaderListener {

    /** This candidate won {@code term}; its task (if any) starts beside this call. */
    default void elected(LeaderTerm term) {
    }

    /**
     * {@code term} ended for {@code cause}: it is no longer valid. Called before the task is stopped and the lock
     * released.
     */
    default void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
    }

    /**
     * Who leads the election changed, as read from Redis while the candidate is started (the same reading as
     * {@link LockClient#observeLeader}: first who leads when the candidate starts, then each change; epochs never go
     * down). It may come before or after this candidate's own {@code elected}/{@code revoked}, which its own clock
     * decides: use those for this candidate's leadership, this one to know another candidate leads.
     */
    default void leaderChanged(LeaderChange change) {
    }
}
