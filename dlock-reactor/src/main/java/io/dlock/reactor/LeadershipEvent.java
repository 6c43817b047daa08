package io.dlock.reactor;

import io.dlock.LeaderTerm;

import java.util.Objects;
import java.util.Optional;

/**
 * One event of a {@link ReactiveLeaderElection}'s candidate ({@link ReactiveLeaderElection#events()}): it won a term,
 * or a term it won ended. The reactive form of {@link io.dlock.LeaderListener}.
 *
 * @param term  the term won or ended
 * @param cause why the term ended, for a revocation; null for an election
 */
public record LeadershipEvent(LeaderTerm term, LeaderTerm.Cause cause) {

    /**
     * @throws NullPointerException when {@code term} is null
     */
    public LeadershipEvent {
        Objects.requireNonNull(term, "term");
    }

    /** @return the event of a won term */
    public static LeadershipEvent elected(LeaderTerm term) {
        return new LeadershipEvent(term, null);
    }

    /**
     * @return the event of a term ended for {@code cause}
     * @throws NullPointerException when an argument is null
     */
    public static LeadershipEvent revoked(LeaderTerm term, LeaderTerm.Cause cause) {
        return new LeadershipEvent(term, Objects.requireNonNull(cause, "cause"));
    }

    /** @return whether this is the win of {@link #term()} (else its end) */
    public boolean isElected() {
        return cause == null;
    }

    /** @return the term's epoch, its fencing token ({@link LeaderTerm#epoch()}) */
    public long epoch() {
        return term.epoch();
    }

    /** @return why the term ended, or empty for an election */
    public Optional<LeaderTerm.Cause> revocationCause() {
        return Optional.ofNullable(cause);
    }
}
