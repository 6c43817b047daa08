package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.List;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.PROBE;

/**
 * {@link Invariant#HOLD_IN_REDIS}: an owner inside its critical section, whose client still claims the hold valid,
 * has its hold in Redis (a multi-lock's: in every member). Judged on the loops' own looks at Redis ({@code PROBE}, see {@link HoldProbe}).
 *
 * <p>A probe that found the hold absent is a violation when all of these are true:
 * <ul>
 *   <li>Redis answered before the end of the hold's longest validity claim so far ({@link Claims}: the acquisition's
 *       check and every passed check of its steps): {@code leaseValidFor()} promised the hold would last in Redis
 *       until then, and the probe saw it gone within that promise. A probe answered later is not judged: the lease
 *       may have run out meanwhile (its holder frozen, a slow machine), which the client cannot prevent.</li>
 *   <li>No {@code redis-restart} window (fault start to end) meets the span from the hold's request to the probe's
 *       answer: Redis restarts without its data, so every hold made before is lost, and the client learns of it
 *       only at its next renewal. (As {@link Invariant#VALID_HOLDS_EXCLUSIVE} ends claims at a restart.)</li>
 * </ul>
 * A probe Redis did not answer (down, frozen, paused, connection cut) is unknown, never a violation. The other
 * faults lose no data: a frozen Redis or a frozen holder lets leases run out, which the claim's end covers.
 */
final class RedisHoldChecks {
    static final String ABSENT = "probes: hold absent from Redis";
    static final String UNKNOWN = "probes: Redis did not answer (unknown)";

    private RedisHoldChecks() {
    }

    static void check(History history, Report report) {
        List<long[]> restarts = history.faultWindows(Fault.REDIS_RESTART);
        history.loops.forEach((loop, events) -> {
            long requested = Long.MIN_VALUE;
            Event acquired = null;
            long claimEnd = Long.MIN_VALUE;
            for (Event e : events) {
                if (e.type() == ACQUIRE_START) {
                    requested = e.nanos();
                    acquired = null;
                } else if (e.type() == ACQUIRED) {
                    acquired = e;
                    claimEnd = Claims.claimEnd(e, Long.MIN_VALUE);
                } else if (acquired != null && e.token() == acquired.token()) {
                    if (e.type() == PROBE) {
                        judge(history, loop, acquired, requested, claimEnd, e, restarts, report);
                    } else {
                        claimEnd = Claims.claimEnd(e, claimEnd);
                        if (e.type() == EXIT) {
                            acquired = null;
                        }
                    }
                }
            }
        });
    }

    private static void judge(History history, String loop, Event acquired, long requested, long claimEnd,
                              Event probe, List<long[]> restarts, Report report) {
        Invariant inv = Invariant.HOLD_IN_REDIS;
        Workload kind = Workload.ofSource(loop);
        report.checked(inv, 1);
        String verdict = probe.detail().split(" ", 2)[0];
        if (verdict.equals("unknown")) {
            report.count(UNKNOWN);
            return;
        }
        if (!verdict.equals("absent")) {
            return;
        }
        report.countForKind(kind, ABSENT);
        if (claimEnd == Long.MIN_VALUE || claimEnd - probe.nanos() <= 0) { // no claim, or it ran out
            report.count("probes: hold absent after its validity claim ran out (not judged)");
            return;
        }
        for (long[] w : restarts) {
            if (w[0] - probe.nanos() < 0 && requested - w[1] < 0) {
                report.count("probes: hold absent after a Redis restart (data lost, exempt)");
                return;
            }
        }
        long sentAt = Long.parseLong(Claims.field(probe, "sentAt="));
        String found = probe.detail().replaceFirst(" sentAt=\\d+", "");
        report.violation(inv, kind, Hold.describe(loop, kind, Hold.isRead(acquired), acquired.token())
                + ", acquired " + history.ms(acquired.nanos()) + ", inside, claimed valid until "
                + history.ms(claimEnd) + ", but Redis had no hold for it on "
                + (kind == Workload.MULTI ? "one of its members" : kind.lockName()) + ": " + found
                + " (probe sent " + history.ms(sentAt) + ", answered by " + history.ms(probe.nanos())
                + "; no restart since the request " + history.ms(requested) + ")");
    }
}
