package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockInfo;

import java.util.stream.Collectors;

/**
 * Who leads an election, as {@code dlock leader} shows it, read from the election's fenced lock in one round trip
 * ({@link LockClient#inspect}, which changes nothing): the holders of the lock's hash ({@code <client id>:<owner id>},
 * one for an election's leader), the token counter's value (the last epoch minted: the leader's epoch while nobody
 * else acquired the lock since) and the time to live.
 *
 * @param name   the election's name
 * @param leader the holders, {@code <client id>:<owner id>} comma-separated; null when nobody holds the lock
 * @param epoch  the fencing token counter's value; null when there is none
 * @param ttl    the lock's time to live in ms ({@code -2}: not held, {@code -1}: no expiry)
 */
record LeaderView(String name, String leader, Long epoch, long ttl) {

    static LeaderView read(LockClient client, String name) {
        LockInfo info = client.inspect(name);
        String leader = info.holders().isEmpty() ? null
                : info.holders().stream().map(LeaderView::field).collect(Collectors.joining(", "));
        return new LeaderView(name, leader, info.fencingToken(), info.ttlMillis());
    }

    /**
     * The holder's hash field. An election holds with a {@code LockOwner} of its own, whose id is negative, which
     * {@link LockInfoFormat#owner} would drop (it reads any negative id as "none"); only the inspector's "not
     * {@code <id>:<number>}" mark, -1, is left out here.
     */
    private static String field(LockInfo.Holder holder) {
        return holder.threadId() == -1 ? holder.clientId() : holder.clientId() + ":" + holder.threadId();
    }

    boolean hasLeader() {
        return leader != null;
    }

    /** {@code NAME: led by ID:OWNER, epoch E, ttl T} or {@code NAME: no leader (last epoch E)}. */
    String line() {
        String epochText = epoch == null ? "none" : Long.toString(epoch);
        return hasLeader() ? name + ": led by " + leader + ", epoch " + epochText + ", ttl " + LockInfoFormat.ttl(ttl)
                : name + ": no leader (last epoch " + epochText + ")";
    }

    /** What {@code --watch} compares to decide whether to print: the leader and the epoch, not the TTL. */
    String signature() {
        return leader + "|" + epoch;
    }
}
