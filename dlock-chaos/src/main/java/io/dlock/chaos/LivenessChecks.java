package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.HUNG;
import static io.dlock.chaos.Event.Type.LEFTOVER;
import static io.dlock.chaos.Event.Type.NOTE;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;

/**
 * How workers live through faults and what a run leaves: {@link Invariant#NO_HANG},
 * {@link Invariant#REDIS_FAILURES_SURFACE} and {@link Invariant#NOTHING_LEFT}.
 */
final class LivenessChecks {
    private static final String LOCK_EXCEPTION = "io.dlock.LockException: ";
    /**
     * The subclass a latch await throws when Redis lost the latch under it (a restart without persistence): the loss
     * reported, as the latch invariant counts it; still a {@code LockException} naming the latch.
     */
    private static final String LOCK_LOST = "io.dlock.LockLostException: ";

    private LivenessChecks() {
    }

    static void check(History history, Report report) {
        checkHangs(history, report);
        checkRedisFailures(history, report);
        checkLeftovers(history, report);
    }

    /**
     * No loop goes longer than the hang bound without an event, time its JVM spent frozen by the nemesis excepted;
     * every worker stops when asked.
     */
    private static void checkHangs(History history, Report report) {
        Invariant inv = Invariant.NO_HANG;
        report.checked(inv, history.loops.size());
        Map<String, List<long[]>> frozen = new HashMap<>();
        List<Event> sorted = history.sorted;
        for (int i = 0; i < sorted.size(); i++) {
            Event e = sorted.get(i);
            if (e.type() == HUNG) {
                report.violation(inv, e.detail());
            } else if (e.type() == FAULT_START && e.detail().startsWith(Fault.PAUSE_HOLDER.label())) {
                long end = History.OPEN;
                for (int j = i + 1; j < sorted.size(); j++) {
                    if (sorted.get(j).type() == FAULT_END) {
                        end = sorted.get(j).nanos();
                        break;
                    }
                }
                frozen.computeIfAbsent(Workload.processOf(e.detail().split(" ")[1]), k -> new ArrayList<>())
                        .add(new long[] {e.nanos(), end});
            }
        }
        long limit = history.bounds.hangMs() * History.MS;
        history.loops.forEach((worker, events) -> {
            List<Long> times = new ArrayList<>();
            events.forEach(e -> times.add(e.nanos()));
            String process = Workload.processOf(worker);
            Long end = history.exitedAt.get(process);
            if (end != null) {
                times.add(end);
            }
            for (int i = 1; i < times.size(); i++) {
                long from = times.get(i - 1);
                long to = times.get(i);
                long gap = to - from - frozenWithin(frozen.getOrDefault(process, List.of()), from, to);
                if (gap > limit) {
                    report.violation(inv, worker + " went " + gap / History.MS + " ms without an event (from "
                            + history.ms(from) + "; bound " + history.bounds.hangMs() + " ms)");
                }
            }
        });
    }

    private static long frozenWithin(List<long[]> windows, long from, long to) {
        long total = 0;
        for (long[] w : windows) {
            long a = Math.max(from, w[0]);
            long b = Math.min(to, w[1]);
            if (b > a) {
                total += b - a;
            }
        }
        return total;
    }

    /**
     * Every failed lock call (set-ups included) is a {@code LockException} naming the lock; no call both starts and
     * succeeds while Redis certainly cannot answer.
     */
    private static void checkRedisFailures(History history, Report report) {
        Invariant inv = Invariant.REDIS_FAILURES_SURFACE;
        int checked = 0;
        for (Event e : history.sorted) {
            if (e.type() == ACQUIRE_ERROR || e.type() == UNLOCK_ERROR || e.type() == SETUP_ERROR) {
                checked++;
                if (!e.detail().startsWith(LOCK_EXCEPTION) && !e.detail().startsWith(LOCK_LOST)) {
                    report.violation(inv, e.source() + " " + e.type() + " is not a LockException: " + e.detail());
                } else if (!namesItsObject(Workload.ofSource(e.source()), e.detail())) {
                    report.violation(inv, e.source() + " " + e.type() + " does not name the lock: " + e.detail());
                } else {
                    report.count("LockException: " + kindOf(e.detail()));
                }
            }
        }
        for (long[] w : history.silentWindows()) {
            checked++;
            history.loops.forEach((worker, events) -> {
                for (int i = 0; i < events.size(); i++) {
                    Event call = events.get(i);
                    if (!History.beginsCall(call) || call.nanos() - w[0] <= 0 || call.nanos() - w[1] >= 0) {
                        continue;
                    }
                    Event outcome = History.outcome(events, i);
                    if (outcome != null && outcome.nanos() - w[1] < 0 && History.succeeded(outcome)) {
                        String did = call.type() == ACQUIRE_START ? "acquired" : call.type() == EXIT ? "unlocked"
                                : "set up";
                        report.violation(inv, worker + " " + did + " at "
                                + history.ms(outcome.nanos()) + " with a request sent at " + history.ms(call.nanos())
                                + ", while Redis could not answer (" + history.ms(w[0]) + ".." + history.ms(w[1])
                                + ")");
                    }
                }
            });
        }
        report.checked(inv, checked);
    }

    /** @return whether an exception's message names (quoted) the lock, a member or the semaphore of {@code kind} */
    private static boolean namesItsObject(Workload kind, String detail) {
        if (detail.contains("'" + kind.lockName() + "'")) {
            return true;
        }
        if (kind == Workload.LATCH) {
            return detail.contains("'" + kind.lockName() + ":"); // a round's latch, chaos:latch:<round>
        }
        if (kind.multiLock() && detail.contains("MultiLock[")) {
            // a multi-lock taken in one script names itself: MultiLock[{chaos:multi}:e, {chaos:multi}:f]
            return kind.hashKeys().stream().anyMatch(detail::contains);
        }
        return kind.hashKeys().stream().anyMatch(name -> detail.contains("'" + name + "'"));
    }

    /** "did not answer in time", "unreachable", … : the part of a LockException message after the operation. */
    private static String kindOf(String detail) {
        if (detail.contains("did not answer in time")) {
            return "Redis did not answer in time";
        }
        if (detail.contains("unreachable") || detail.contains("Connection refused")) {
            return "Redis unreachable";
        }
        if (detail.contains("Redis error")) {
            return "Redis error";
        }
        return "other";
    }

    /**
     * After the run: no key but the token counter (and the fair queue's places of killed waiters, until their
     * deadlines), no subscription, no process (the run recorded LEFTOVERs).
     */
    private static void checkLeftovers(History history, Report report) {
        Invariant inv = Invariant.NOTHING_LEFT;
        report.checked(inv, 1);
        for (Event e : history.sorted) {
            if (e.type() == LEFTOVER) {
                report.violation(inv, e.detail());
            } else if (e.type() == NOTE && (e.detail().startsWith("skip ") || e.detail().startsWith("fair queue: "))) {
                report.note(e.detail());
            }
        }
    }
}
