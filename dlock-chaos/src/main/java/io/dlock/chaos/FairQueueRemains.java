package io.dlock.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * After a run, what may remain of the fair lock's queue ({@code redisson_lock_queue:{chaos:fair}}, and the deadlines
 * {@code redisson_lock_timeout:{chaos:fair}}) without being left behind: the places of waiters whose worker was
 * killed, in keys that expire. A place lasts until its deadline, which each attempt raises to (waiters ahead + 1) ×
 * the wait slot from then, and the keys live a slot past the latest deadline ({@code fair_acquire.lua}); with several
 * owners per worker, killed workers leave many places, so the keys can outlive the run's final wait by a minute.
 * Waiters that stopped cleanly gave their places up: a place of theirs is a leak, as is a key without an expiry or
 * one that outlives the bound the caller gives.
 */
final class FairQueueRemains {
    /**
     * What the remains are.
     *
     * @param leak whether they are left behind
     * @param why  what they are, or why they count as left behind
     */
    record Verdict(boolean leak, String why) {
    }

    private FairQueueRemains() {
    }

    /** @return the fair lock's queue keys */
    static List<String> keys() {
        String name = Workload.FAIR.lockName();
        return List.of("redisson_lock_queue:{" + name + "}", "redisson_lock_timeout:{" + name + "}");
    }

    /**
     * @param present      keys found after the run (the queue keys among them are judged)
     * @param killedLoopOf a queue member (owner field) → the loop of a killed worker it belongs to, or null when it
     *                     belongs to no killed worker
     * @param boundMs      the longest the keys may still live: a slot past the latest deadline any waiter of the run
     *                     can have been given, (every fair loop of the run + 1) slots after its last attempt
     * @return null when no queue key is present
     */
    static Verdict judge(RedisAdmin admin, List<String> present, Function<String, String> killedLoopOf, long boundMs)
            throws IOException {
        List<String> keys = keys().stream().filter(present::contains).toList();
        if (keys.isEmpty()) {
            return null;
        }
        List<String> places = new ArrayList<>();
        Object deadlines = admin.call("ZRANGE", keys().get(1), "0", "-1");
        if (deadlines instanceof List<?> members) {
            members.forEach(m -> places.add(String.valueOf(m)));
        }
        Object queue = admin.call("LRANGE", keys().get(0), "0", "-1");
        if (queue instanceof List<?> members) {
            members.forEach(m -> places.add(String.valueOf(m)));
        }
        List<String> loops = new ArrayList<>();
        for (String field : places) {
            String loop = killedLoopOf.apply(field);
            if (loop == null) {
                return new Verdict(true, "fair queue: place " + field + " of a waiter that was not killed");
            }
            loops.add(loop);
        }
        long longest = 0;
        for (String key : keys) {
            Object pttl = admin.call("PTTL", key);
            if (!(pttl instanceof Long ms) || ms <= 0 || ms > boundMs) {
                return new Verdict(true, "fair queue: " + key + " expires in " + pttl + " ms (bound " + boundMs
                        + " ms; -1: never)");
            }
            longest = Math.max(longest, ms);
        }
        return new Verdict(false, "fair queue: places of killed waiters " + loops.stream().distinct().sorted().toList()
                + " remain; the keys expire within " + longest + " ms (bound " + boundMs + " ms)");
    }
}
