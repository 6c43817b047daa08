package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ELECTED;
import static io.dlock.chaos.Event.Type.REGISTER_ACCEPTED;
import static io.dlock.chaos.Event.Type.REGISTER_REJECTED;
import static io.dlock.chaos.Event.Type.REVOKED;

/**
 * The leader election's invariants ({@link ElectionLoop}, issue 44 item 7), under every fault:
 * <ul>
 *   <li>{@link Invariant#ELECTION_TERMS}: each candidate hears {@code revoked} only for the term it was last told it
 *       won, and never {@code elected} twice without a {@code revoked} between (a killed candidate's last term may
 *       stay open); no epoch is won by two candidates; a term heard elected after another term was heard revoked has
 *       the higher epoch, unless a fault was near (a candidate frozen between its win and its listener hears it
 *       late);</li>
 *   <li>{@link Invariant#ELECTION_FENCED}: in the register's order accepted epochs never go down; no accepted write's
 *       guard began after its term was heard revoked (the listener runs after the term became invalid, so such a
 *       guard passed on a term already over); a write rejected as stale (two terms overlapped) has a fault near
 *       (its start to its end plus the grace): while Redis keeps the key, terms do not overlap.</li>
 * </ul>
 */
final class ElectionChecks {
    private ElectionChecks() {
    }

    static void check(History history, Report report) {
        long grace = history.bounds.graceMs() * History.MS;
        List<long[]> faults = history.faultWindows();
        Map<Long, Long> revokedAt = terms(history, report, faults, grace);
        register(history, report, revokedAt, faults, grace);
    }

    /** @return when each epoch was heard revoked */
    private static Map<Long, Long> terms(History history, Report report, List<long[]> faults, long grace) {
        Invariant inv = Invariant.ELECTION_TERMS;
        Map<String, Event> open = new HashMap<>();
        Map<String, Event> last = new HashMap<>();
        Map<Long, String> wonBy = new HashMap<>();
        Map<Long, Long> revokedAt = new HashMap<>();
        Event lastRevoked = null;
        int elections = 0;
        for (Event e : history.sorted) {
            if (e.type() == ELECTED) {
                elections++;
                Event before = open.put(e.source(), e);
                if (before != null) {
                    report.violation(inv, e.source() + " elected (epoch " + e.token() + ") at " + history.ms(e.nanos())
                            + " without a revoked for epoch " + before.token());
                }
                String other = wonBy.putIfAbsent(e.token(), e.source());
                if (other != null) {
                    report.violation(inv, "epoch " + e.token() + " won by both " + other + " and " + e.source());
                }
                if (lastRevoked != null && e.token() <= lastRevoked.token()) {
                    if (near(e.nanos(), faults, grace)) {
                        report.count("election terms heard out of order near a fault");
                    } else {
                        report.violation(inv, e.source() + " elected with epoch " + e.token() + " at "
                                + history.ms(e.nanos()) + ", not above epoch " + lastRevoked.token() + " of "
                                + lastRevoked.source() + ", revoked before it at " + history.ms(lastRevoked.nanos()));
                    }
                }
                last.put(e.source(), e);
            } else if (e.type() == REVOKED) {
                Event term = open.remove(e.source());
                if (term == null || term.token() != e.token()) {
                    report.violation(inv, e.source() + " revoked epoch " + e.token() + " at " + history.ms(e.nanos())
                            + (term == null ? " without an elected" : " while its term was epoch " + term.token()));
                }
                revokedAt.putIfAbsent(e.token(), e.nanos());
                if (lastRevoked == null || e.token() > lastRevoked.token()) {
                    lastRevoked = e;
                }
                report.count("election terms revoked, " + e.detail());
            }
        }
        report.checked(inv, elections);
        return revokedAt;
    }

    private static void register(History history, Report report, Map<Long, Long> revokedAt, List<long[]> faults,
                                 long grace) {
        Invariant inv = Invariant.ELECTION_FENCED;
        long highest = Long.MIN_VALUE;
        int decisions = 0;
        for (Event e : history.sorted) {
            if (e.type() == REGISTER_ACCEPTED) {
                decisions++;
                if (e.token() < highest) {
                    report.violation(inv, "the register accepted epoch " + e.token() + " after " + highest);
                }
                highest = Math.max(highest, e.token());
                Long revoked = revokedAt.get(e.token());
                long guardAt = guardAt(e);
                if (revoked != null && revoked - guardAt < 0) {
                    report.violation(inv, writer(e) + " wrote epoch " + e.token() + " through a guard begun at "
                            + history.ms(guardAt) + ", after the term was heard revoked at " + history.ms(revoked));
                } else if (revoked != null && revoked - e.nanos() < 0) {
                    report.count("election writes guarded before their revocation, accepted after it");
                }
            } else if (e.type() == REGISTER_REJECTED) {
                decisions++;
                if (e.token() >= highest) {
                    report.violation(inv, "the register rejected epoch " + e.token() + ", not below " + highest);
                }
                if (near(e.nanos(), faults, grace)) {
                    report.count("stale election writes refused near a fault");
                } else {
                    report.violation(inv, writer(e) + " wrote stale epoch " + e.token() + " at "
                            + history.ms(e.nanos()) + " (highest " + highest + ") with no fault near: two terms "
                            + "overlapped");
                }
            }
        }
        report.checked(inv, decisions);
    }

    private static boolean near(long at, List<long[]> windows, long grace) {
        for (long[] w : windows) {
            if (w[0] - at <= 0 && at - (w[1] + grace) <= 0) {
                return true;
            }
        }
        return false;
    }

    private static String writer(Event e) {
        return e.detail().split(" ")[0];
    }

    private static long guardAt(Event e) {
        for (String part : e.detail().split(" ")) {
            if (part.startsWith("guardAt=")) {
                return Long.parseLong(part.substring("guardAt=".length()));
            }
        }
        throw new IllegalArgumentException("no guardAt in " + e);
    }
}
