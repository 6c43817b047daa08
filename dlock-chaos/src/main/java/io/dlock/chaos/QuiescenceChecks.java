package io.dlock.chaos;

import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.QUIESCENT;

/**
 * {@link Checker.Invariant#NOTHING_HELD_BY_CANCELLED}: each worker that stopped cleanly recorded, after its loops
 * ended and before closing its client, what its client still counted as held of the workloads that cancel
 * ({@link Workload#cancels()}: {@code QUIESCENT}). Their loops give back every hold they learn of, so anything there
 * is a grant that a cancelled acquisition (a {@code dispose()}, a {@code timeout}, a {@code cancel(false)}, a timed
 * try) left held, renewed by the watchdog until the client closes. Each worker's record is one case.
 */
final class QuiescenceChecks {
    /** What a failed acquisition says when the client counted a hold of its owner that Redis no longer has. */
    static final String REENTRY_GONE = "that this acquisition would re-enter is gone from Redis";

    private QuiescenceChecks() {
    }

    static void check(History history, Report report) {
        Checker.Invariant inv = Checker.Invariant.NOTHING_HELD_BY_CANCELLED;
        int judged = 0;
        for (Event e : history.sorted) {
            if (e.type() != QUIESCENT) {
                continue;
            }
            judged++;
            if (!e.detail().equals("held=0")) {
                report.violation(inv, e.source() + " still held at quiescence, no loop knowing of it: " + e.detail());
            }
        }
        report.checked(inv, judged);
        for (var loop : history.loops.entrySet()) {
            if (!Workload.ofSource(loop.getKey()).cancels()) {
                continue;
            }
            // those loops never start an acquisition while they hold anything: a refusal as a re-entry of a gone hold
            // means the client still counted a grant of a cancelled acquisition of the same owner (being given back)
            // when the next one began, against "one owner's acquisitions in order" (fixed: a cancelled multi-lock
            // orders the owner's next acquisitions after its give-back)
            for (Event e : loop.getValue()) {
                if (e.type() == ACQUIRE_ERROR && e.detail().contains(REENTRY_GONE)) {
                    report.violation(inv, loop.getKey() + " met a cancelled acquisition's grant as a hold to "
                            + "re-enter: " + e.detail());
                }
            }
        }
    }
}
