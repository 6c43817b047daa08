package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.PERMITS_STATE;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_START;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;

/**
 * {@link Invariant#PERMITS_CONSERVED}: at quiescence (every worker stopped, every lease over: the run's
 * {@code PERMITS_STATE} events) a semaphore's available permits plus those still held are what it was configured
 * with. No permit is lost (an acquisition that failed or timed out took nothing: the lost-reply rule gives back what
 * an unanswered attempt took), none is made up (a release gives back one).
 *
 * <p>Counted call by call, from the last Redis restart (which loses the keys; the run's start has none either):
 * <ul>
 *   <li>the plain semaphore's count is {@code 3 × (trySetPermits that answered true) − (acquisitions) +
 *       (releases)}: the permits held at the end (by killed workers, whose permits have no lease) are the
 *       acquisitions without a release. That is the documented restart allowance too: a holder across a restart
 *       gives back a permit that Redis no longer counts, one more than configured (a release is a release);</li>
 *   <li>the leased semaphore's count plus its permit table ({@code {chaos:leased}:timeout}, expired permits
 *       included: they are reclaimed by the next acquisition) is {@code 3 × (trySetPermits that answered true)}:
 *       an acquisition moves a permit from the count to the table, a release or a reclaim moves it back, and a
 *       release after a restart finds nothing to give back (no allowance).</li>
 * </ul>
 * A call whose effect cannot be known widens the expected range by what it may have done: a release or
 * {@code trySetPermits} that failed ({@code LockException}: it may have run), a call cut short by a kill, a call
 * that met the last restart (from its start to its answer; for a failed or timed-out acquisition up to a grace after
 * it, when a give-back of a permit taken before the restart may still come). Acquisitions that failed or timed out
 * away from a restart are exact: they took nothing.
 */
final class ConservationChecks {
    private ConservationChecks() {
    }

    /** What the calls since the last restart did to a semaphore: the exact part and the range of the unknown. */
    static final class Tally {
        long sets;
        long acquired;
        long released;
        /** How far below and above the exact count the unknown calls may have moved it. */
        long down;
        long up;
        int unknown;

        long exact(Workload kind) {
            return kind == Workload.SEMAPHORE ? kind.permits() * sets - acquired + released : kind.permits() * sets;
        }
    }

    static void check(History history, Report report) {
        Invariant inv = Invariant.PERMITS_CONSERVED;
        List<long[]> restarts = history.restartWindows();
        long[] last = restarts.isEmpty() ? null : restarts.get(restarts.size() - 1);
        for (Event e : history.sorted) {
            if (e.type() != PERMITS_STATE) {
                continue;
            }
            Workload kind = Workload.ofLabel(Claims.field(e, "kind="));
            long count = Long.parseLong(Claims.field(e, "count="));
            String table = Claims.field(e, "table=");
            long total = count + (table == null ? 0 : Long.parseLong(table));
            report.checked(inv, 1);
            Tally t = tally(history, kind, last);
            long exact = t.exact(kind);
            String sample = "permits at quiescence: " + kind.label() + " (found, exact, -unknown, +unknown)";
            report.sample(sample, total);
            report.sample(sample, exact);
            report.sample(sample, t.down);
            report.sample(sample, t.up);
            if (total < exact - t.down || total > exact + t.up) {
                String found = kind == Workload.SEMAPHORE ? count + " available + " + (t.acquired - t.released)
                        + " held (" + t.acquired + " acquisitions - " + t.released + " releases) = "
                        + (count + t.acquired - t.released)
                        : count + " available + " + table + " in the permit table = " + total;
                report.violation(inv, kind, kind.lockName() + " at quiescence: " + found + ", configured "
                        + kind.permits() + " x " + t.sets + " trySetPermits that set it = " + kind.permits() * t.sets
                        + (t.unknown == 0 ? "" : " (" + t.unknown + " call(s) of unknown effect allow "
                        + (exact - t.down) + ".." + (exact + t.up) + " for the left side)")
                        + "; counted " + (last == null ? "over the whole run" : "since the Redis restart at "
                        + history.ms(last[0]))
                        + (total < exact - t.down ? ": permits lost" : ": permits made up"));
            }
        }
    }

    /** Adds up the calls of {@code kind}'s loops that count after {@code last} (a restart window, or null). */
    static Tally tally(History history, Workload kind, long[] last) {
        Tally t = new Tally();
        long grace = history.bounds.graceMs() * History.MS;
        long exists = existsFrom(history, kind, last);
        for (Map.Entry<String, List<Event>> loop : history.loops.entrySet()) {
            if (Workload.ofSource(loop.getKey()) != kind) {
                continue;
            }
            List<Event> events = loop.getValue();
            for (int i = 0; i < events.size(); i++) {
                Event call = events.get(i);
                if (!History.beginsCall(call)) {
                    continue;
                }
                Event outcome = History.outcome(events, i);
                long start = call.nanos();
                long end = outcome == null ? History.OPEN : outcome.nanos();
                boolean mayGiveBackLater = outcome != null
                        && (outcome.type() == ACQUIRE_ERROR || outcome.type() == ACQUIRE_TIMEOUT);
                if (last != null) {
                    long reach = mayGiveBackLater ? end + grace : end;
                    if (reach - last[0] < 0) {
                        continue; // all it did was lost with the data
                    }
                    if (start - last[1] <= 0) { // met the restart: done before the loss, after it, or not at all
                        widen(t, kind, call, outcome, true, false);
                        continue;
                    }
                }
                widen(t, kind, call, outcome, false, start - exists > 0);
            }
        }
        return t;
    }

    /**
     * @return from when the semaphore's count key certainly exists after {@code last} (or the run's start): the first
     *         answer, after that, of a call that found or made it (a set-up, an acquisition, a release); the key is
     *         never deleted, so from then on until the next restart a set-up cannot set it ({@link History#OPEN}
     *         if none)
     */
    private static long existsFrom(History history, Workload kind, long[] last) {
        long from = History.OPEN;
        for (Map.Entry<String, List<Event>> loop : history.loops.entrySet()) {
            if (Workload.ofSource(loop.getKey()) != kind) {
                continue;
            }
            List<Event> events = loop.getValue();
            for (int i = 0; i < events.size(); i++) {
                Event call = events.get(i);
                if (!History.beginsCall(call) || last != null && call.nanos() - last[1] <= 0) {
                    continue;
                }
                Event outcome = History.outcome(events, i);
                if (outcome != null && (outcome.type() == SETUP || outcome.type() == ACQUIRED
                        || outcome.type() == UNLOCKED) && outcome.nanos() - from < 0) {
                    from = outcome.nanos();
                }
            }
        }
        return from;
    }

    /**
     * Adds one call: exactly, or (unknown effect) as the range of what it may have done.
     *
     * @param keyExists whether the count key certainly existed when the call was sent (a set-up then sets nothing)
     */
    private static void widen(Tally t, Workload kind, Event call, Event outcome, boolean metRestart,
                              boolean keyExists) {
        boolean plain = kind == Workload.SEMAPHORE;
        if (call.type() == SETUP_START) {
            if (keyExists && (outcome == null || outcome.type() != SETUP)) {
                return; // failed or cut short, but there was nothing for it to set
            }
            if (outcome != null && outcome.type() == SETUP && !metRestart) {
                t.sets += Boolean.parseBoolean(outcome.detail()) ? 1 : 0;
            } else if (outcome == null || outcome.type() != SETUP || Boolean.parseBoolean(outcome.detail())) {
                t.up += kind.permits(); // it may have set the count, or not
                t.unknown++;
            }
            return;
        }
        if (!plain) {
            return; // the leased semaphore's count + table: acquisitions and releases move permits, not add them
        }
        if (call.type() == ACQUIRE_START) {
            if (outcome == null || metRestart && outcome.type() == ACQUIRED) {
                t.down++; // it may have taken a permit (or, met by the restart, taken it before the loss)
                t.unknown++;
            } else if (metRestart) {
                t.up++; // failed or timed out: a give-back of a permit taken before the loss may come after it
                t.unknown++;
            } else if (outcome.type() == ACQUIRED) {
                t.acquired++;
            }
            return;
        }
        // a release (EXIT → its outcome)
        if (outcome != null && outcome.type() == UNLOCKED && !metRestart) {
            t.released++;
        } else if (outcome == null || outcome.type() == UNLOCK_ERROR || outcome.type() == UNLOCKED) {
            t.up++; // it may have given the permit back (to the Redis that lost it, or not at all)
            t.unknown++;
        }
    }

    /** For messages and tests: the detail of a {@code PERMITS_STATE} event. */
    static String state(Workload kind, long count, Long table, Long live) {
        return "kind=" + kind.label() + " count=" + count + (table == null ? "" : " table=" + table + " live=" + live);
    }
}
