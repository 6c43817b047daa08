package io.dlock.chaos;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;

/**
 * Which faults reached which workload, for the report's per-kind rows: a fault <em>meets</em> a kind when one of its
 * loops had a call in flight (from its start to its outcome, or to its process' end) or was inside a hold while the
 * fault lasted. The command stalls ({@link Fault#COMMAND_STALL}) are counted apart, the stalls shorter than the
 * command timeout and the longer ones each by their silent window (REDIS_DOWN to REDIS_UP).
 */
final class FaultReach {
    static final String FAULTS_MET = "faults met (call in flight or hold)";
    static final String SHORT_STALLS_MET = "stalls < command timeout met (call in flight)";
    static final String LONG_STALLS_MET = "stalls > command timeout met (call in flight)";

    private FaultReach() {
    }

    static void count(History history, List<Hold> holds, Report report) {
        Map<Workload, List<long[]>> calls = new EnumMap<>(Workload.class);
        Map<Workload, List<long[]>> busy = new EnumMap<>(Workload.class);
        for (Workload kind : Workload.values()) {
            calls.put(kind, new ArrayList<>());
            busy.put(kind, new ArrayList<>());
        }
        history.loops.forEach((loop, events) -> {
            Workload kind = Workload.ofSource(loop);
            long end = history.exitedAt.getOrDefault(Workload.processOf(loop), events.get(events.size() - 1).nanos());
            for (int i = 0; i < events.size(); i++) {
                if (History.beginsCall(events.get(i))) {
                    Event outcome = History.outcome(events, i);
                    long[] call = {events.get(i).nanos(), outcome == null ? end : outcome.nanos()};
                    calls.get(kind).add(call);
                    busy.get(kind).add(call);
                }
            }
        });
        for (Hold h : holds) {
            busy.get(h.kind()).add(new long[] {h.acquired(), h.end()});
        }
        for (long[] w : history.faultWindows()) {
            for (Workload kind : Workload.values()) {
                if (meets(busy.get(kind), w)) {
                    report.countForKind(kind, FAULTS_MET);
                }
            }
        }
        Long down = null;
        String what = null;
        for (Event e : history.sorted) {
            if (e.type() == REDIS_DOWN && e.detail().startsWith(Fault.COMMAND_STALL.label())) {
                down = e.nanos();
                what = e.detail().contains(" short") ? SHORT_STALLS_MET : LONG_STALLS_MET;
            } else if (e.type() == REDIS_UP && down != null) {
                long[] w = {down, e.nanos()};
                for (Workload kind : Workload.values()) {
                    if (meets(calls.get(kind), w)) {
                        report.countForKind(kind, what);
                    }
                }
                down = null;
            } else if (e.type() == FAULT_START) {
                down = null;
            }
        }
    }

    private static boolean meets(List<long[]> intervals, long[] w) {
        for (long[] i : intervals) {
            if (i[0] - w[1] <= 0 && w[0] - i[1] <= 0) {
                return true;
            }
        }
        return false;
    }
}
