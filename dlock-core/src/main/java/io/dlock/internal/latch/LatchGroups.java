package io.dlock.internal.latch;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link LatchGroup} of each latch this client awaits, and the awaits' way in and out of them.
 *
 * <p>A latch name has at most one group at a time: created by the first join, removed when its last member leaves;
 * both under the map's per-name lock, so a joiner never lands in a group that is being dropped. Thread-safe.
 */
final class LatchGroups {
    private final LatchParts parts;
    private final Map<String, LatchGroup> groups = new ConcurrentHashMap<>();

    LatchGroups(LatchParts parts) {
        this.parts = parts;
    }

    /**
     * Starts one await of {@code latch} through the client's front door and adds it to the latch's group, which it
     * leaves whenever it ends.
     *
     * @param timeoutMs how long to wait, or a negative value for no limit
     * @return completes with true when the latch is open, false when the time ran out; cancellable (ends the wait)
     */
    CompletableFuture<Boolean> await(LatchProtocol latch, long timeoutMs) {
        LatchAwait member = new LatchAwait(parts, latch.name(), timeoutMs).start();
        member.result().whenComplete((ok, error) -> leave(member));
        join(member, latch);
        return member.result();
    }

    /**
     * Adds {@code member} to the group of its latch, creating the group if none; the member rides the group's next
     * check, sending one unless a check it may ride is already due. Nothing when the member has ended already.
     */
    private void join(LatchAwait member, LatchProtocol latch) {
        LatchGroup[] joined = new LatchGroup[1];
        long[] check = new long[1];
        groups.compute(latch.name(), (name, group) -> {
            if (member.result().isDone()) {
                return group; // ended before it joined (its leave found nothing to leave)
            }
            LatchGroup g = group != null ? group : new LatchGroup(parts, latch);
            check[0] = g.add(member);
            joined[0] = g;
            return g;
        });
        if (check[0] > 0) {
            joined[0].send(check[0]);
        } else if (check[0] == LatchGroup.SUBSCRIBING_FIRST) {
            joined[0].checkOnceSubscribed();
        }
    }

    /** Removes {@code member} from its group; the last one to leave drops the group and its subscription. */
    private void leave(LatchAwait member) {
        LatchGroup[] dropped = new LatchGroup[1];
        groups.computeIfPresent(member.name(), (name, group) -> {
            if (!group.remove(member)) {
                return group;
            }
            dropped[0] = group;
            return null;
        });
        if (dropped[0] != null) {
            dropped[0].release();
        }
    }

    /**
     * A pub/sub message arrived (on Lettuce's thread; never blocks): a {@code 0} on a latch's channel, which only an
     * opening publishes (a count-down to zero, a delete, an announced expiry), tells the latch's group, if any, that
     * the latch opened ({@link LatchGroup#zeroHeard}). Other channels and messages are ignored.
     */
    void message(String channel, String message) {
        if (!"0".equals(message) || !channel.startsWith(LatchChannel.PREFIX + "{") || !channel.endsWith("}")) {
            return;
        }
        LatchGroup group = groups.get(channel.substring(LatchChannel.PREFIX.length() + 1, channel.length() - 1));
        if (group != null) {
            group.zeroHeard();
        }
    }
}
