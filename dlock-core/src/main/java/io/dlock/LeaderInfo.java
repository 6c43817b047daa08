package io.dlock;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Who leads a {@link LeaderElection}, as anyone may read it ({@link LockClient#inspectLeader},
 * {@link LockClient#observeLeader}) without being a candidate: the leader record that the winning candidate's
 * acquisition wrote beside the election's lock (docs/protocol.md §14.4). Immutable.
 *
 * @param election   the election's name
 * @param identity   the leader's client: its id, host, process id and application
 * @param holder     the leader's owner field in the lock's hash, {@code <client id>:<owner id>} (what
 *                   {@link LockClient#inspect} shows as the holder): tells apart two candidates of one client
 * @param epoch      the term's epoch, the fencing token of the win ({@link LeaderTerm#epoch()})
 * @param since      when the term was won, by the Redis server's clock (ms precision)
 * @param timeToLive the leader's time to live as Redis counted it when read: its lock's remaining TTL. The leader
 *                   itself steps down earlier (its renew deadline, {@link LeaderElectionSettings#renewDeadline()})
 *                   unless it renews; a reader sees that as a later read showing another leader or none
 */
public record LeaderInfo(String election, ClientIdentity identity, String holder, long epoch, Instant since,
                         Duration timeToLive) {

    /** @throws NullPointerException when a component is null */
    public LeaderInfo {
        Objects.requireNonNull(election, "election");
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(timeToLive, "timeToLive");
    }
}
