package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Mutual exclusion between owners: {@link Invariant#NO_OVERLAP} (conflicting holds overlap only near a fault) and
 * {@link Invariant#VALID_HOLDS_EXCLUSIVE} (conflicting holds are never both known valid, whatever the faults).
 */
final class ExclusionChecks {
    private ExclusionChecks() {
    }

    static void check(History history, List<Hold> holds, Report report) {
        checkOverlap(history, holds, report);
        checkValidHolds(history, holds, report);
    }

    /** Two conflicting holds overlap only if one of them meets a fault window (its start to its end plus grace). */
    private static void checkOverlap(History history, List<Hold> holds, Report report) {
        Invariant inv = Invariant.NO_OVERLAP;
        report.checked(inv, holds.size());
        List<long[]> faultWindows = history.faultWindows();
        List<Hold> byStart = new ArrayList<>(holds);
        byStart.sort(Comparator.comparingLong(Hold::acquired));
        long grace = history.bounds.graceMs() * History.MS;
        for (int i = 0; i < byStart.size(); i++) {
            Hold a = byStart.get(i);
            for (int j = i + 1; j < byStart.size() && byStart.get(j).acquired() - a.end() < 0; j++) {
                Hold b = byStart.get(j);
                if (!a.conflictsWith(b)) {
                    continue;
                }
                if (meetsFault(a, faultWindows, grace) || meetsFault(b, faultWindows, grace)) {
                    report.count("overlaps excused by a fault");
                    continue;
                }
                report.violation(inv, a.kind(), a.describe() + " (" + history.ms(a.acquired()) + ".."
                        + history.ms(a.end()) + ") and " + b.describe() + " (" + history.ms(b.acquired()) + ".."
                        + history.ms(b.end()) + ") overlap with no fault active");
            }
        }
    }

    private static boolean meetsFault(Hold h, List<long[]> windows, long grace) {
        for (long[] w : windows) {
            if (h.acquired() - (w[1] + grace) <= 0 && w[0] - h.end() <= 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * A hold is known valid from its acquisition to {@link Hold#knownValidUntil()}, cut short by a Redis restart after
     * {@link Hold#writtenFrom()} (the data, that hold or one of its members included, was lost: a multi-lock member
     * taken before the restart is gone although the multi-lock completed after it). Two conflicting holds known valid
     * at one moment means Redis held both.
     */
    private static void checkValidHolds(History history, List<Hold> holds, Report report) {
        Invariant inv = Invariant.VALID_HOLDS_EXCLUSIVE;
        report.checked(inv, holds.size());
        List<Long> restarts = history.restarts();
        List<long[]> intervals = new ArrayList<>();
        List<Hold> valid = new ArrayList<>();
        for (Hold h : holds) {
            long until = h.knownValidUntil();
            for (long restart : restarts) {
                if (restart - h.writtenFrom() > 0 && restart - until < 0) {
                    until = restart;
                }
            }
            if (until - h.acquired() > 0) {
                valid.add(h);
                intervals.add(new long[] {h.acquired(), until});
            } else {
                report.count("holds never known valid (no passed check)");
            }
        }
        Integer[] order = new Integer[valid.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> intervals.get(i)[0]));
        for (int x = 0; x < order.length; x++) {
            Hold a = valid.get(order[x]);
            long[] ia = intervals.get(order[x]);
            for (int y = x + 1; y < order.length && intervals.get(order[y])[0] - ia[1] < 0; y++) {
                Hold b = valid.get(order[y]);
                if (a.conflictsWith(b)) {
                    long[] ib = intervals.get(order[y]);
                    report.violation(inv, a.kind(), a.describe() + " known valid " + history.ms(ia[0]) + ".."
                            + history.ms(ia[1]) + " and " + b.describe() + " known valid " + history.ms(ib[0])
                            + ".." + history.ms(ib[1]) + " on " + a.sharedWith(b) + ": Redis held both");
                }
            }
        }
    }
}
