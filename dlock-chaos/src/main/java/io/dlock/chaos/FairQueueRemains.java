package io.dlock.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * After a run, what may remain of the fair lock's queue ({@code redisson_lock_queue:{chaos:fair}}, and the deadlines
 * {@code redisson_lock_timeout:{chaos:fair}}) without being left behind: the places of waiters whose worker was
 * killed. A place lasts until its deadline, which each attempt raises to (waiters ahead + 1) × the wait slot from
 * then ({@code fair_acquire.lua}), and the keys expire one slot after the latest deadline; with several owners per
 * worker a killed worker can leave many places, so they can outlive the run's final wait by tens of seconds. Live
 * waiters give their places up when they stop, so any other member is a leak.
 */
final class FairQueueRemains {
    /** Slack for the time between reading the deadlines and the TTLs. */
    private static final long MARGIN_MS = 1000;

    private FairQueueRemains() {
    }

    /** @return the fair lock's queue keys */
    static List<String> keys() {
        String name = LockKind.FAIR.lockName();
        return List.of("redisson_lock_queue:{" + name + "}", "redisson_lock_timeout:{" + name + "}");
    }

    /**
     * @param present      keys found after the run
     * @param killedLoopOf a queue member (owner field) → the loop of a killed worker it belongs to, or null when it
     *                     belongs to no killed worker
     * @param slotMs       the waiters' slot (their client's {@code fairLockWaitTimeout})
     * @return why the queue keys among {@code present} are no leak, or null when they are one (or absent): every
     * member is a place of a killed worker, and both keys expire within a slot (plus a margin) after the latest
     * deadline
     */
    static String excuse(RedisAdmin admin, List<String> present, Function<String, String> killedLoopOf, long slotMs)
            throws IOException {
        List<String> keys = keys();
        if (present.stream().noneMatch(keys::contains)) {
            return null;
        }
        List<String> places = new ArrayList<>();
        long latest = Long.MIN_VALUE;
        Object deadlines = admin.call("ZRANGE", keys.get(1), "0", "-1", "WITHSCORES");
        if (deadlines instanceof List<?> pairs) {
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                places.add(String.valueOf(pairs.get(i)));
                latest = Math.max(latest, (long) Double.parseDouble(String.valueOf(pairs.get(i + 1))));
            }
        }
        Object queue = admin.call("LRANGE", keys.get(0), "0", "-1");
        if (queue instanceof List<?> members) {
            members.forEach(m -> places.add(String.valueOf(m)));
        }
        List<String> loops = new ArrayList<>();
        for (String field : places) {
            String loop = killedLoopOf.apply(field);
            if (loop == null) {
                return null;
            }
            loops.add(loop);
        }
        Object time = admin.call("TIME");
        if (latest == Long.MIN_VALUE || !(time instanceof List<?> t) || t.size() < 2) {
            return null;
        }
        long nowMs = Long.parseLong(String.valueOf(t.get(0))) * 1000 + Long.parseLong(String.valueOf(t.get(1))) / 1000;
        long boundMs = latest - nowMs + slotMs + MARGIN_MS;
        long longest = 0;
        for (String key : keys) {
            if (!present.contains(key)) {
                continue;
            }
            Object pttl = admin.call("PTTL", key);
            if (!(pttl instanceof Long ms) || ms <= 0 || ms > boundMs) {
                return null;
            }
            longest = Math.max(longest, ms);
        }
        return "fair queue: places of killed waiters " + loops.stream().distinct().sorted().toList()
                + " remain; the keys expire within " + longest + " ms (bound " + boundMs + " ms: a slot after the"
                + " latest deadline)";
    }
}
