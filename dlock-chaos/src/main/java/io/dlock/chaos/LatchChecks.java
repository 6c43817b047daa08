package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_START;

/**
 * {@link Invariant#LATCH_OPENS_BY_COUNT_DOWNS}: a latch never opens without its count-downs. An await of a round's
 * latch ({@link LatchLoop}) that answered {@code true} at {@code t} is a violation unless at least
 * {@value Workload#LATCH_COUNT} count-downs of that latch were <em>sent</em> after the set-up that made it and before
 * {@code t} — and, when Redis restarted (without its data) after that set-up, before the restart: a count-down that
 * reaches the restarted server finds no latch and opens nothing (its {@code DECR} of a missing key is deleted at
 * once), so only the count-downs before the loss can have opened it.
 *
 * <p>Judged: awaits that began after a {@code trySetCount} of their latch had answered {@code true}, with no restart
 * between that set-up's request and the await's request. Not judged (counted): an await that began with its latch not
 * known to be set (Redis answers {@code true} for a latch that does not exist), or after a restart had already lost
 * it (the awaiter began on a missing latch). An await that <em>spans</em> a restart is judged: its client sees the
 * reconnect to a new server and must not answer {@code true} for a latch it lost (issue 27 #6); an await that fails
 * instead (an exception: the client reports the loss, or Redis failed) is never a violation, only counted.
 */
final class LatchChecks {
    private LatchChecks() {
    }

    /** One await: its latch, when it was sent and when (and how) it ended. */
    private record Await(String loop, String name, long requested, Event outcome) {
    }

    static void check(History history, Report report) {
        Invariant inv = Invariant.LATCH_OPENS_BY_COUNT_DOWNS;
        Map<String, List<long[]>> sets = new HashMap<>(); // latch → {request, answer} of each trySetCount true
        Map<String, List<Long>> countDowns = new HashMap<>(); // latch → when each count-down was sent
        List<Await> awaits = new ArrayList<>();
        history.loops.forEach((loop, events) -> {
            if (Workload.ofSource(loop) != Workload.LATCH) {
                return;
            }
            for (int i = 0; i < events.size(); i++) {
                Event e = events.get(i);
                String name = Claims.field(e, "name=");
                if (name == null) {
                    continue;
                }
                Event outcome = History.beginsCall(e) ? History.outcome(events, i) : null;
                if (e.type() == SETUP_START && outcome != null && outcome.type() == SETUP
                        && Boolean.parseBoolean(outcome.detail())) {
                    sets.computeIfAbsent(name, k -> new ArrayList<>()).add(new long[] {e.nanos(), outcome.nanos()});
                } else if (e.type() == ACQUIRE_START && e.detail().startsWith("countdown")) {
                    countDowns.computeIfAbsent(name, k -> new ArrayList<>()).add(e.nanos());
                } else if (e.type() == ACQUIRE_START && e.detail().startsWith("await") && outcome != null) {
                    awaits.add(new Await(loop, name, e.nanos(), outcome));
                }
            }
        });
        List<Long> restarts = history.restarts();
        for (Await a : awaits) {
            Event.Type how = a.outcome().type();
            if (how == ACQUIRE_TIMEOUT) {
                report.count("latch: awaits timed out (false)");
                continue;
            }
            if (how == ACQUIRE_ERROR) {
                report.count("latch: awaits failed (a reported loss, or Redis failed)");
                continue;
            }
            if (how != ACQUIRED) {
                continue;
            }
            long[] set = null;
            for (long[] s : sets.getOrDefault(a.name(), List.of())) {
                if (s[1] - a.requested() < 0 && (set == null || s[1] - set[1] > 0)) {
                    set = s;
                }
            }
            if (set == null) {
                report.count("latch: awaits open, latch not known set when they began (not judged)");
                continue;
            }
            Long lostAt = null;
            for (long r : restarts) {
                if (r - set[0] > 0 && (lostAt == null || r - lostAt < 0)) {
                    lostAt = r;
                }
            }
            if (lostAt != null && lostAt - a.requested() < 0) {
                report.count("latch: awaits open, latch lost in a restart before they began (not judged)");
                continue;
            }
            report.checked(inv, 1);
            long opened = a.outcome().nanos();
            long until = lostAt != null && lostAt - opened < 0 ? lostAt : opened;
            long from = set[0];
            long sent = countDowns.getOrDefault(a.name(), List.of()).stream()
                    .filter(t -> t - from > 0 && t - until < 0).count();
            if (sent >= Workload.LATCH_COUNT) {
                report.count("latch: awaits open after their count-downs");
                continue;
            }
            report.violation(inv, Workload.LATCH, a.loop() + " await of " + a.name() + " (sent "
                    + history.ms(a.requested()) + ") answered true at " + history.ms(opened) + ", but only " + sent
                    + " of its " + Workload.LATCH_COUNT + " count-downs were sent after its trySetCount ("
                    + history.ms(set[0]) + ".." + history.ms(set[1]) + ")" + (until == opened ? ""
                    : " and before the Redis restart at " + history.ms(lostAt) + " that lost it: the client answered"
                    + " true for a latch it lost"));
        }
    }
}
