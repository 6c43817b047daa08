package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The semaphores' safety: never more holders than permits. {@link Invariant#PERMITS_NO_FAULT} counts the holds
 * (acquisition to leaving the critical section) that meet no fault window; {@link Invariant#PERMITS_VALID} counts,
 * under every fault, the holds <em>known valid</em> at each moment, as {@link ExclusionChecks} does for locks: a
 * leased permit from its acquisition to the end of its longest {@code leaseValidFor()} claim, a plain permit (no
 * lease: it lasts until released) to leaving its critical section; a Redis restart ends both.
 *
 * <p>A restart loses the plain semaphore's count while its holders are out: the workload sets the permits again
 * ({@code trySetPermits}) and each of those holders' later release adds one more (Redis cannot tell it from any
 * release). So after a restart the plain semaphore may admit as many more holders as held a permit across it, for
 * the rest of the run, faults near or not; both checks allow exactly that many more, and no more. A leased permit's release after a
 * restart finds no permit to give back, so the leased semaphore gets no such allowance.
 */
final class PermitChecks {
    private PermitChecks() {
    }

    static void check(History history, List<Hold> holds, Report report) {
        List<long[]> faults = history.faultWindows();
        long grace = history.bounds.graceMs() * History.MS;
        List<Long> restarts = history.restarts();
        for (Workload kind : Workload.values()) {
            if (kind.permits() == 0) {
                continue;
            }
            List<Hold> ofKind = holds.stream().filter(h -> h.kind() == kind).toList();
            List<long[]> quiet = new ArrayList<>();
            List<long[]> valid = new ArrayList<>();
            for (Hold h : ofKind) {
                if (!meetsFault(h, faults, grace)) {
                    quiet.add(new long[] {h.acquired(), h.end()});
                }
                long until = h.knownValidUntil();
                for (long restart : restarts) {
                    if (restart - h.acquired() > 0 && restart - until < 0) {
                        until = restart;
                    }
                }
                if (until - h.acquired() > 0) {
                    valid.add(new long[] {h.acquired(), until});
                }
            }
            List<long[]> allowance = kind.leased() ? List.of() : allowance(ofKind, restarts);
            report.checked(Invariant.PERMITS_NO_FAULT, quiet.size());
            report.checked(Invariant.PERMITS_VALID, valid.size());
            sweep(history, report, Invariant.PERMITS_NO_FAULT, kind, quiet, allowance, "holders with no fault near");
            sweep(history, report, Invariant.PERMITS_VALID, kind, valid, allowance, "holders known valid");
        }
    }

    /** @return {time, extra permits from then on}: one per plain-semaphore hold held across each restart */
    private static List<long[]> allowance(List<Hold> holds, List<Long> restarts) {
        List<long[]> extra = new ArrayList<>();
        for (long restart : restarts) {
            long across = holds.stream().filter(h -> h.acquired() - restart < 0 && h.end() - restart > 0).count();
            extra.add(new long[] {restart, across});
        }
        return extra;
    }

    /**
     * Walks the intervals in time order (an end before a start at the same instant) and reports each moment the
     * number inside rises above the permits (plus the restart allowance then).
     */
    private static void sweep(History history, Report report, Invariant inv, Workload kind, List<long[]> intervals,
                              List<long[]> allowance, String what) {
        List<long[]> edges = new ArrayList<>();
        for (long[] i : intervals) {
            edges.add(new long[] {i[0], +1});
            edges.add(new long[] {i[1], -1});
        }
        edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
        int inside = 0;
        boolean over = false;
        for (long[] e : edges) {
            inside += (int) e[1];
            long allowed = kind.permits();
            for (long[] a : allowance) {
                if (a[0] - e[0] <= 0) {
                    allowed += a[1];
                }
            }
            if (inside > allowed && !over) {
                report.violation(inv, kind, inside + " " + what + " on " + kind.lockName() + " at "
                        + history.ms(e[0]) + ", more than its " + allowed + " permits");
            }
            over = inside > allowed;
        }
    }

    static boolean meetsFault(Hold h, List<long[]> windows, long grace) {
        for (long[] w : windows) {
            if (h.acquired() - (w[1] + grace) <= 0 && w[0] - h.end() <= 0) {
                return true;
            }
        }
        return false;
    }
}
