package io.dlock;

import java.util.Objects;
import java.util.Optional;

/**
 * A change of who leads an election, as an observer reads it ({@link LockClient#observeLeader},
 * {@link LeaderListener#leaderChanged}): a new leader, with an epoch higher than every leader told before to the same
 * observer, or no leader any more. Immutable.
 *
 * @param election the election's name
 * @param leader   the leader now, or null when nobody leads (the last one released, resigned, or its lease ran out)
 */
public record LeaderChange(String election, LeaderInfo leader) {

    /** @throws NullPointerException when {@code election} is null */
    public LeaderChange {
        Objects.requireNonNull(election, "election");
    }

    /** @return the leader now; empty when nobody leads */
    public Optional<LeaderInfo> current() {
        return Optional.ofNullable(leader);
    }
}
