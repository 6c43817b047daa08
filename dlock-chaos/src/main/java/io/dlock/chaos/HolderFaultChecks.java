package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.CONNECTIONS_KILLED;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.FREED;
import static io.dlock.chaos.Event.Type.LEASE_LOST;
import static io.dlock.chaos.Event.Type.NOT_FREED;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.RELEASE_FREED;
import static io.dlock.chaos.Event.Type.RELEASE_NOT_FREED;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;
import static io.dlock.chaos.Event.Type.WRITE_OK;
import static io.dlock.chaos.Event.Type.WRITE_REJECTED;
import static io.dlock.chaos.Event.Type.WRITE_START;

/**
 * What must follow a fault aimed at holders: {@link Invariant#DEAD_HOLDER_FREED} (kill-holder),
 * {@link Invariant#PAUSED_HOLDER_LEARNS} (pause-holder) and {@link Invariant#FAILED_RELEASE_ENDS} (release-drop).
 */
final class HolderFaultChecks {
    private HolderFaultChecks() {
    }

    static void check(History history, Report report) {
        checkDeadHolders(history, report);
        checkPausedHolders(history, report);
        checkDroppedReleases(history, report);
    }

    /** A killed holder's hold is gone within its lease plus 1 s (the nemesis watched it). */
    private static void checkDeadHolders(History history, Report report) {
        Invariant inv = Invariant.DEAD_HOLDER_FREED;
        long bound = history.bounds.leaseMs() + 1000;
        for (Event e : history.sorted) {
            if (e.type() == FREED) {
                report.checked(inv, 1);
                String[] parts = e.detail().split(" ");
                long after = Long.parseLong(parts[1]);
                report.sample("kill-holder: lock free after (ms)", after);
                if (after > bound) {
                    report.violation(inv, "killed holder " + parts[0] + "'s lock was freed only after " + after
                            + " ms (bound " + bound + " ms)");
                }
            } else if (e.type() == NOT_FREED) {
                report.checked(inv, 1);
                report.violation(inv, "killed holder's lock not freed: " + e.detail());
            }
        }
    }

    /**
     * The target of a pause is one loop's hold, but the whole JVM is frozen: every loop of it that held across the
     * pause is judged.
     */
    private static void checkPausedHolders(History history, Report report) {
        Invariant inv = Invariant.PAUSED_HOLDER_LEARNS;
        List<Event> sorted = history.sorted;
        for (int i = 0; i < sorted.size(); i++) {
            Event start = sorted.get(i);
            if (start.type() != FAULT_START || !start.detail().startsWith(Fault.PAUSE_HOLDER.label())) {
                continue;
            }
            Event end = null;
            for (int j = i + 1; j < sorted.size() && end == null; j++) {
                if (sorted.get(j).type() == FAULT_END) {
                    end = sorted.get(j);
                }
            }
            String process = Workload.processOf(start.detail().split(" ")[1]);
            boolean caught = false;
            for (Map.Entry<String, List<Event>> loop : history.loops.entrySet()) {
                if (!Workload.processOf(loop.getKey()).equals(process)
                        || !Workload.ofSource(loop.getKey()).leased() // a plain permit outlives any pause
                        || Workload.ofSource(loop.getKey()).cancels()) { // checks no validity: cut by its cancels
                    continue;
                }
                List<Event> events = loop.getValue();
                Long token = heldAcross(events, start.nanos(), end == null ? History.OPEN : end.nanos());
                if (token == null || end == null) {
                    continue;
                }
                caught = true;
                report.checked(inv, 1);
                judgePause(history, loop.getKey(), token, start.nanos(), end.nanos(), events, report);
            }
            if (!caught) {
                report.count("pauses that caught no holder");
            }
        }
    }

    /** @return the token of the hold the loop had from before {@code from} until after {@code to}, or null */
    private static Long heldAcross(List<Event> events, long from, long to) {
        Event acquired = null;
        for (Event e : events) {
            if (e.nanos() - from >= 0) {
                break;
            }
            if (e.type() == ACQUIRED) {
                acquired = e;
            } else if (e.type() == EXIT && acquired != null && e.token() == acquired.token()) {
                acquired = null;
            }
        }
        if (acquired == null) {
            return null;
        }
        for (Event e : events) {
            if (e.type() == EXIT && e.token() == acquired.token() && e.nanos() - acquired.nanos() > 0) {
                return e.nanos() - to > 0 ? acquired.token() : null;
            }
        }
        return acquired.token(); // killed later while still inside
    }

    /**
     * After the resume every validity check of the hold says it is gone, and the listener speaks within its bound.
     */
    private static void judgePause(History history, String victim, long token, long pausedAt, long resumedAt,
                                   List<Event> events, Report report) {
        Invariant inv = Invariant.PAUSED_HOLDER_LEARNS;
        boolean checkedAfter = false;
        boolean refused = false;
        boolean told = false;
        boolean careless = false;
        for (Event e : events) {
            if (e.token() != token) {
                continue;
            }
            if (e.type() == ACQUIRED && e.detail().contains("unchecked")) {
                careless = true;
                report.count("paused holders that never check their lease");
            }
            if (careless && e.nanos() - resumedAt > 0 && (e.type() == WRITE_OK || e.type() == WRITE_REJECTED)) {
                report.count(e.type() == WRITE_REJECTED ? "late writes of paused careless holders: rejected"
                        : "late writes of paused careless holders: accepted (no newer token written yet)");
            }
            if (e.type() == LEASE_LOST && e.nanos() - pausedAt > 0
                    && e.nanos() - (resumedAt + history.bounds.listenerBoundMs() * History.MS) <= 0) {
                told = true;
            }
            Long checkedAt = Claims.checkedAt(e);
            if (checkedAt == null || checkedAt - resumedAt <= 0) {
                if (e.type() == WRITE_START && checkedAt != null && checkedAt - pausedAt < 0
                        && e.nanos() - resumedAt > 0) {
                    report.count("writes whose check came before a pause and whose send after it");
                }
                continue;
            }
            checkedAfter = true;
            if (e.type() == NOT_VALID || Claims.validMs(e) <= 0) {
                refused = true;
            } else {
                report.violation(inv, victim + " resumed at " + history.ms(resumedAt) + " (frozen since "
                        + history.ms(pausedAt) + ", longer than its lease) and its validity check at "
                        + history.ms(checkedAt) + " still said token " + token + " was valid: " + e.type() + " "
                        + e.detail());
            }
        }
        if (refused) {
            report.count("paused holders stopped by leaseValidFor()");
        }
        if (told) {
            report.count("paused holders told by the LeaseLostListener");
        }
        if (!checkedAfter) {
            report.count("paused holders that left without a check after resuming");
            return;
        }
        if (!told) {
            report.violation(inv, victim + " resumed at " + history.ms(resumedAt) + " holding token " + token
                    + " past its lease, but its LeaseLostListener did not tell it within "
                    + history.bounds.listenerBoundMs() + " ms");
        }
    }

    /**
     * Judges the nemesis' watch after each {@code release-drop} and counts the releases it hit: those sent while
     * Redis held scripts back (from its {@code REDIS_DOWN} to the cut), by how they ended.
     */
    private static void checkDroppedReleases(History history, Report report) {
        Invariant inv = Invariant.FAILED_RELEASE_ENDS;
        Long pausedAt = null;
        for (Event e : history.sorted) {
            if (e.type() == RELEASE_FREED) {
                report.checked(inv, 1);
                String[] parts = e.detail().split(" ");
                report.sample("release-drop: hold over after (ms)", Long.parseLong(parts[1]));
            } else if (e.type() == RELEASE_NOT_FREED) {
                report.checked(inv, 1);
                report.violation(inv, e.detail());
            } else if (e.type() == REDIS_DOWN && e.detail().equals(Fault.RELEASE_DROP.label())) {
                pausedAt = e.nanos();
            } else if (e.type() == CONNECTIONS_KILLED && pausedAt != null) {
                countHitReleases(history, pausedAt, e.nanos(), report);
                pausedAt = null;
            }
        }
    }

    private static void countHitReleases(History history, long pausedAt, long cutAt, Report report) {
        history.loops.forEach((worker, events) -> {
            for (int i = 0; i < events.size(); i++) {
                Event exit = events.get(i);
                if (exit.type() != EXIT || exit.nanos() - pausedAt <= 0 || exit.nanos() - cutAt >= 0) {
                    continue;
                }
                Event outcome = History.outcome(events, i, false);
                String how = outcome == null ? "killed before it ended"
                        : outcome.type() == UNLOCKED ? "unlocked (sent again after the reconnect)"
                        : outcome.type() == UNLOCK_NOT_HELD ? "not held (IllegalMonitorStateException)"
                        : outcome.nanos() - cutAt < 0 ? "failed: timed out before the cut, never ran"
                        : "failed: connection cut";
                report.count("releases hit by release-drop: " + how);
                report.countForKind(Workload.ofSource(worker), "releases hit by release-drop");
            }
        });
    }
}
