package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.STORE_ACCEPTED;
import static io.dlock.chaos.Event.Type.STORE_REJECTED;

/**
 * The fenced lock's invariants: {@link Invariant#TOKENS_INCREASE} over its holds, and
 * {@link Invariant#NO_STALE_WRITE} over the store's decisions.
 */
final class FencingChecks {
    private FencingChecks() {
    }

    static void check(History history, List<Hold> fenced, Report report) {
        checkTokens(history, fenced, report);
        checkStore(history, fenced, report);
    }

    /**
     * An acquisition that completed before another was requested has the smaller token; no token goes to two owners.
     * An owner that gets the token it already had (Redis still had its hold) continues that hold.
     */
    private static void checkTokens(History history, List<Hold> holds, Report report) {
        Invariant inv = Invariant.TOKENS_INCREASE;
        report.checked(inv, holds.size());
        Map<Long, String> issuedTo = new HashMap<>();
        for (Hold h : holds) {
            String other = issuedTo.putIfAbsent(h.token(), h.worker());
            if (other != null && !other.equals(h.worker())) {
                report.violation(inv, "token " + h.token() + " issued to both " + other + " and " + h.worker());
            }
        }
        List<Hold> byCompletion = new ArrayList<>(holds);
        byCompletion.sort(Comparator.comparingLong(Hold::acquired));
        List<Hold> byRequest = new ArrayList<>(holds);
        byRequest.sort(Comparator.comparingLong(Hold::requested));
        Hold highest = null;
        int next = 0;
        for (Hold b : byRequest) {
            while (next < byCompletion.size() && byCompletion.get(next).acquired() - b.requested() < 0) {
                Hold a = byCompletion.get(next++);
                if (highest == null || a.token() > highest.token()) {
                    highest = a;
                }
            }
            if (highest == null || b.token() > highest.token()) {
                continue;
            }
            if (b.token() == highest.token() && b.worker().equals(highest.worker())) {
                report.count("holds continued in Redis (same token again)");
                continue;
            }
            report.violation(inv, b.worker() + " requested at " + history.ms(b.requested()) + " and got token "
                    + b.token() + ", not above " + highest.token() + " that " + highest.worker() + " got at "
                    + history.ms(highest.acquired()));
        }
    }

    /**
     * In the store's order of decisions accepted tokens never go down, a rejection is only of a token below the
     * highest accepted, and every accepted token was issued to its writer.
     */
    private static void checkStore(History history, List<Hold> holds, Report report) {
        Invariant inv = Invariant.NO_STALE_WRITE;
        Map<Long, String> issuedTo = new HashMap<>();
        for (Hold h : holds) {
            issuedTo.put(h.token(), h.worker());
        }
        long highest = Long.MIN_VALUE;
        int decisions = 0;
        for (Event e : history.sorted) {
            if (e.type() == STORE_ACCEPTED) {
                decisions++;
                if (e.token() < highest) {
                    report.violation(inv, "store accepted token " + e.token() + " from " + e.detail() + " at "
                            + history.ms(e.nanos()) + " after accepting " + highest);
                }
                if (!e.detail().equals(issuedTo.get(e.token()))) {
                    report.violation(inv, "store accepted token " + e.token() + " from " + e.detail()
                            + ", which was never issued to it (issued to " + issuedTo.get(e.token()) + ")");
                }
                highest = Math.max(highest, e.token());
            } else if (e.type() == STORE_REJECTED) {
                decisions++;
                if (e.token() >= highest) {
                    report.violation(inv, "store rejected token " + e.token() + " although the highest it had"
                            + " accepted was " + highest);
                }
            }
        }
        report.checked(inv, decisions);
    }
}
