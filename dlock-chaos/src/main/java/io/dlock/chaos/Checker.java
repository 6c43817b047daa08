package io.dlock.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.CONNECTIONS_KILLED;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.EXITED;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.FREED;
import static io.dlock.chaos.Event.Type.HUNG;
import static io.dlock.chaos.Event.Type.LEASE_LOST;
import static io.dlock.chaos.Event.Type.LEFTOVER;
import static io.dlock.chaos.Event.Type.NOTE;
import static io.dlock.chaos.Event.Type.NOT_FREED;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.RELEASE_FREED;
import static io.dlock.chaos.Event.Type.RELEASE_NOT_FREED;
import static io.dlock.chaos.Event.Type.STEP;
import static io.dlock.chaos.Event.Type.STORE_ACCEPTED;
import static io.dlock.chaos.Event.Type.STORE_REJECTED;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.UNLOCK_NOT_HELD;
import static io.dlock.chaos.Event.Type.WRITE_OK;
import static io.dlock.chaos.Event.Type.WRITE_REJECTED;
import static io.dlock.chaos.Event.Type.WRITE_START;

/**
 * Checks a run's history (all events of all processes, on one monotonic clock) against the invariants. A pure
 * function of the events: unit-tested with made-up histories that break each invariant.
 *
 * <p>Holds are per lock loop (source {@code w<n>/<kind>}): the fencing invariants (1, 2) concern the fenced lock,
 * the others every {@link LockKind}. Two holds <em>conflict</em> when they are on the same lock, in different loops,
 * and not both read holds of the read-write lock.
 *
 * <ol>
 *   <li>{@link Invariant#TOKENS_INCREASE}: an acquisition that completed before another was requested has the
 *       smaller token; no token is issued to two workers. (A worker that gets the token it already had, because
 *       Redis still had its hold, is a continuation, not a new acquisition.)</li>
 *   <li>{@link Invariant#NO_STALE_WRITE}: in the store's order of decisions, accepted tokens never go down, a
 *       rejection is only ever of a token below the highest accepted, and every accepted token was issued to the
 *       worker that wrote it.</li>
 *   <li>{@link Invariant#NO_OVERLAP}: two conflicting holds (from acquisition to leaving the critical section)
 *       overlap only if one of them meets a fault window (from a fault's start to its end plus the grace: a lease
 *       plus 1 s).</li>
 *   <li>{@link Invariant#VALID_HOLDS_EXCLUSIVE}, under every fault: two conflicting holds are never both
 *       <em>known valid</em> at one moment. A hold is known valid from its acquisition until the earliest of leaving
 *       its critical section and the end of its longest validity claim ({@code checkedAt + validMs} of a
 *       {@code leaseValidFor()} check that passed): {@code leaseValidFor()} promises that the hold lasts in Redis at
 *       least that long, so two such intervals meeting means Redis held both. A Redis restart (the data is lost)
 *       ends every claim made before it; a holder frozen past its lease made no claim meanwhile, so its late
 *       critical section is not covered (the store's fencing is what covers it, for the fenced lock).</li>
 *   <li>{@link Invariant#DEAD_HOLDER_FREED}: a killed holder's hold is gone within its lease plus 1 s.</li>
 *   <li>{@link Invariant#PAUSED_HOLDER_LEARNS}: a holder frozen past its lease does not, once resumed, find its lease
 *       valid again (every validity check it makes after the resume says it is gone), and its lease-lost listener
 *       tells it within the listener bound.</li>
 *   <li>{@link Invariant#NO_HANG}: a worker never goes longer than the hang bound without an event (time frozen by
 *       the nemesis excepted), and stops when asked.</li>
 *   <li>{@link Invariant#REDIS_FAILURES_SURFACE}: every failed lock call is a {@code LockException} naming the lock;
 *       no lock call both starts and succeeds while Redis certainly cannot answer.</li>
 *   <li>{@link Invariant#FAILED_RELEASE_ENDS}: every hold in Redis when {@code release-drop} cut the connections
 *       (releases held back in Redis among them) is over within a lease plus 1 s plus the longest critical
 *       section.</li>
 *   <li>{@link Invariant#NOTHING_LEFT}: after the run, no key but the token counter, no subscription, no process.</li>
 * </ol>
 */
public final class Checker {

    /** The invariants, in report order. */
    public enum Invariant {
        TOKENS_INCREASE("tokens strictly increase"),
        NO_STALE_WRITE("store never accepts a stale token"),
        NO_OVERLAP("no overlap while no fault is active"),
        VALID_HOLDS_EXCLUSIVE("holds known valid never overlap"),
        DEAD_HOLDER_FREED("dead holder's lock free within lease + 1 s"),
        PAUSED_HOLDER_LEARNS("paused holder learns of the loss before writing"),
        NO_HANG("no worker hangs"),
        REDIS_FAILURES_SURFACE("Redis failures surface as LockException"),
        FAILED_RELEASE_ENDS("dropped release's hold ends within lease + 1 s"),
        NOTHING_LEFT("nothing left behind");

        final String title;

        Invariant(String title) {
            this.title = title;
        }
    }

    /**
     * The bounds the checks use.
     *
     * @param leaseMs         the lease of a hold (the watchdog timeout)
     * @param graceMs         how long a fault's effects may outlast it
     * @param listenerBoundMs how soon after a frozen holder resumes its listener must have spoken
     * @param hangMs          the longest a worker may go without an event
     */
    public record Bounds(long leaseMs, long graceMs, long listenerBoundMs, long hangMs) {
    }

    /**
     * One hold: from acquisition to leaving the critical section.
     *
     * @param worker     the loop ({@code w3/rw})
     * @param kind       its lock kind
     * @param read       a read hold of the read-write lock
     * @param token      the fencing token (fenced lock) or the loop's hold number
     * @param validUntil the end of its longest validity claim ({@link Long#MIN_VALUE} when it made none)
     */
    record Hold(String worker, LockKind kind, boolean read, long token, long requested, long acquired, long end,
                long validUntil) {
        boolean conflictsWith(Hold other) {
            return kind == other.kind && !worker.equals(other.worker) && !(read && other.read);
        }

        /** @return the end of the interval in which the hold is known valid (before {@link #acquired} if none) */
        long knownValidUntil() {
            return validUntil == Long.MIN_VALUE ? acquired - 1 : Math.min(end, validUntil);
        }
    }

    private static final long MS = 1_000_000L;

    private final Bounds bounds;
    /** The first event's time: times in messages are counted from it. */
    private long origin;

    public Checker(Bounds bounds) {
        this.bounds = bounds;
    }

    /** Checks {@code events} (any order). */
    public Report check(List<Event> events, Map<Fault, Integer> injected, ChaosSettings settings, String redisVersion,
                        Duration took) {
        List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Event::nanos));
        origin = sorted.isEmpty() ? 0 : sorted.get(0).nanos();
        Map<String, List<Event>> byWorker = new TreeMap<>();
        for (Event e : sorted) {
            if (LockKind.ofSource(e.source()) != null) {
                byWorker.computeIfAbsent(e.source(), k -> new ArrayList<>()).add(e);
            }
        }
        Report report = new Report(settings, redisVersion, took, injected, sorted);
        List<Hold> holds = holds(byWorker, sorted);
        List<Hold> fenced = holds.stream().filter(h -> h.kind() == LockKind.FENCED).toList();
        List<long[]> faultWindows = faultWindows(sorted);
        checkTokens(fenced, report);
        checkStore(sorted, fenced, report);
        checkOverlap(holds, faultWindows, report);
        checkValidHolds(holds, restarts(sorted), report);
        checkDeadHolders(sorted, report);
        checkPausedHolders(sorted, byWorker, report);
        checkHangs(sorted, byWorker, report);
        checkRedisFailures(sorted, byWorker, report);
        checkDroppedReleases(sorted, byWorker, report);
        checkLeftovers(sorted, report);
        return report;
    }

    // ------------------------------------------------------------------------------------------ holds

    private static List<Hold> holds(Map<String, List<Event>> byWorker, List<Event> all) {
        Map<String, Long> ended = new HashMap<>();
        for (Event e : all) {
            if (e.type() == EXITED) {
                ended.put(e.detail().split(" ")[0], e.nanos());
            }
        }
        List<Hold> holds = new ArrayList<>();
        byWorker.forEach((worker, events) -> {
            LockKind kind = LockKind.ofSource(worker);
            long requested = Long.MIN_VALUE;
            Event acquired = null;
            long validUntil = Long.MIN_VALUE;
            for (Event e : events) {
                if (e.type() == ACQUIRE_START) {
                    requested = e.nanos();
                } else if (e.type() == ACQUIRED) {
                    acquired = e;
                    validUntil = claimEnd(e, Long.MIN_VALUE);
                } else if (acquired != null && e.token() == acquired.token()) {
                    validUntil = claimEnd(e, validUntil);
                    if (e.type() == EXIT) {
                        holds.add(new Hold(worker, kind, isRead(acquired), acquired.token(), requested,
                                acquired.nanos(), e.nanos(), validUntil));
                        acquired = null;
                    }
                }
            }
            if (acquired != null) {
                // killed (or hung) inside the critical section: the hold lasted until the process was gone
                long last = events.get(events.size() - 1).nanos();
                holds.add(new Hold(worker, kind, isRead(acquired), acquired.token(), requested, acquired.nanos(),
                        Math.max(last, ended.getOrDefault(LockKind.processOf(worker), last)), validUntil));
            }
        });
        return holds;
    }

    /** @return whether an ACQUIRED event is of the read side of the read-write lock */
    private static boolean isRead(Event acquired) {
        return List.of(acquired.detail().split(" ")).contains("read");
    }

    /** @return the later of {@code soFar} and the end of the validity claim recorded in {@code e}, if any */
    private static long claimEnd(Event e, long soFar) {
        Long checkedAt = checkedAt(e);
        long validMs = checkedAt == null ? 0 : validMs(e);
        if (checkedAt == null || validMs <= 0) {
            return soFar;
        }
        return Math.max(soFar, checkedAt + validMs * MS);
    }

    /** @return when Redis was killed for a restart (its data lost) */
    private static List<Long> restarts(List<Event> sorted) {
        List<Long> at = new ArrayList<>();
        for (Event e : sorted) {
            if (e.type() == REDIS_DOWN && e.detail().startsWith(Fault.REDIS_RESTART.label())) {
                at.add(e.nanos());
            }
        }
        return at;
    }

    private static List<long[]> faultWindows(List<Event> sorted) {
        List<long[]> windows = new ArrayList<>();
        Long start = null;
        for (Event e : sorted) {
            if (e.source().equals("nemesis") && e.type() == FAULT_START) {
                start = e.nanos();
            } else if (e.source().equals("nemesis") && e.type() == FAULT_END && start != null) {
                windows.add(new long[] {start, e.nanos()});
                start = null;
            }
        }
        if (start != null) {
            windows.add(new long[] {start, Long.MAX_VALUE / 2});
        }
        return windows;
    }

    // ------------------------------------------------------------------------------------------ 1. tokens

    private void checkTokens(List<Hold> holds, Report report) {
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
            report.violation(inv, b.worker() + " requested at " + ms(b.requested()) + " and got token " + b.token()
                    + ", not above " + highest.token() + " that " + highest.worker() + " got at "
                    + ms(highest.acquired()));
        }
    }

    // ------------------------------------------------------------------------------------------ 2. store

    private void checkStore(List<Event> sorted, List<Hold> holds, Report report) {
        Invariant inv = Invariant.NO_STALE_WRITE;
        Map<Long, String> issuedTo = new HashMap<>();
        for (Hold h : holds) {
            issuedTo.put(h.token(), h.worker());
        }
        long highest = Long.MIN_VALUE;
        int decisions = 0;
        for (Event e : sorted) {
            if (e.type() == STORE_ACCEPTED) {
                decisions++;
                if (e.token() < highest) {
                    report.violation(inv, "store accepted token " + e.token() + " from " + e.detail() + " at "
                            + ms(e.nanos()) + " after accepting " + highest);
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

    // ------------------------------------------------------------------------------------------ 3. overlap

    private void checkOverlap(List<Hold> holds, List<long[]> faultWindows, Report report) {
        Invariant inv = Invariant.NO_OVERLAP;
        report.checked(inv, holds.size());
        List<Hold> byStart = new ArrayList<>(holds);
        byStart.sort(Comparator.comparingLong(Hold::acquired));
        long grace = bounds.graceMs() * MS;
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
                report.violation(inv, a.kind(), describe(a) + " (" + ms(a.acquired()) + ".." + ms(a.end()) + ") and "
                        + describe(b) + " (" + ms(b.acquired()) + ".." + ms(b.end()) + ") overlap with no fault"
                        + " active");
            }
        }
    }

    private static String describe(Hold h) {
        return h.worker() + (h.kind() == LockKind.FENCED ? " (token " : h.read() ? " (read hold " : " (hold ")
                + h.token() + ")";
    }

    // ------------------------------------------------------------------------------------------ 3b. valid holds

    private void checkValidHolds(List<Hold> holds, List<Long> restarts, Report report) {
        Invariant inv = Invariant.VALID_HOLDS_EXCLUSIVE;
        report.checked(inv, holds.size());
        List<long[]> intervals = new ArrayList<>();
        List<Hold> valid = new ArrayList<>();
        for (Hold h : holds) {
            long until = h.knownValidUntil();
            for (long restart : restarts) {
                if (restart - h.acquired() > 0 && restart - until < 0) {
                    until = restart; // the data, this hold included, was lost
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
        java.util.Arrays.sort(order, Comparator.comparingLong(i -> intervals.get(i)[0]));
        for (int x = 0; x < order.length; x++) {
            Hold a = valid.get(order[x]);
            long[] ia = intervals.get(order[x]);
            for (int y = x + 1; y < order.length && intervals.get(order[y])[0] - ia[1] < 0; y++) {
                Hold b = valid.get(order[y]);
                if (a.conflictsWith(b)) {
                    long[] ib = intervals.get(order[y]);
                    report.violation(inv, a.kind(), describe(a) + " known valid " + ms(ia[0]) + ".." + ms(ia[1])
                            + " and " + describe(b) + " known valid " + ms(ib[0]) + ".." + ms(ib[1])
                            + " on " + a.kind().lockName() + ": Redis held both");
                }
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

    // ------------------------------------------------------------------------------------------ 4. dead holders

    private void checkDeadHolders(List<Event> sorted, Report report) {
        Invariant inv = Invariant.DEAD_HOLDER_FREED;
        long bound = bounds.leaseMs() + 1000;
        for (Event e : sorted) {
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

    // ------------------------------------------------------------------------------------------ 5. paused holders

    private void checkPausedHolders(List<Event> sorted, Map<String, List<Event>> byWorker, Report report) {
        Invariant inv = Invariant.PAUSED_HOLDER_LEARNS;
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
            // the target is one loop's hold, but the whole JVM is frozen: every loop of it holding across is judged
            String process = LockKind.processOf(start.detail().split(" ")[1]);
            boolean caught = false;
            for (Map.Entry<String, List<Event>> loop : byWorker.entrySet()) {
                if (!LockKind.processOf(loop.getKey()).equals(process)) {
                    continue;
                }
                List<Event> events = loop.getValue();
                Long token = heldAcross(events, start.nanos(), end == null ? Long.MAX_VALUE / 2 : end.nanos());
                if (token == null || end == null) {
                    continue;
                }
                caught = true;
                report.checked(inv, 1);
                judgePause(loop.getKey(), token, start.nanos(), end.nanos(), events, report, inv);
            }
            if (!caught) {
                report.count("pauses that caught no holder");
            }
        }
    }

    /** @return the token of the hold the worker had from before {@code from} until after {@code to}, or null */
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

    private void judgePause(String victim, long token, long pausedAt, long resumedAt, List<Event> events,
                            Report report, Invariant inv) {
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
                    && e.nanos() - (resumedAt + bounds.listenerBoundMs() * MS) <= 0) {
                told = true;
            }
            Long checkedAt = checkedAt(e);
            if (checkedAt == null || checkedAt - resumedAt <= 0) {
                if (e.type() == WRITE_START && checkedAt != null && checkedAt - pausedAt < 0
                        && e.nanos() - resumedAt > 0) {
                    report.count("writes whose check came before a pause and whose send after it");
                }
                continue;
            }
            checkedAfter = true;
            if (e.type() == NOT_VALID || validMs(e) <= 0) {
                refused = true;
            } else {
                report.violation(inv, victim + " resumed at " + ms(resumedAt) + " (frozen since " + ms(pausedAt)
                        + ", longer than its lease) and its validity check at " + ms(checkedAt)
                        + " still said token " + token + " was valid: " + e.type() + " " + e.detail());
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
            report.violation(inv, victim + " resumed at " + ms(resumedAt) + " holding token " + token
                    + " past its lease, but its LeaseLostListener did not tell it within "
                    + bounds.listenerBoundMs() + " ms");
        }
    }

    /** What the validity check recorded in {@code e} said, in ms ({@code validMs=}); 0 when not recorded. */
    static long validMs(Event e) {
        for (String part : e.detail().split(" ")) {
            if (part.startsWith("validMs=")) {
                return Long.parseLong(part.substring("validMs=".length()));
            }
        }
        return 0;
    }

    /** The {@code checkedAt=} of a validity check recorded in an ACQUIRED, WRITE_START, STEP, NOT_VALID or EXIT. */
    static Long checkedAt(Event e) {
        if (e.type() != WRITE_START && e.type() != STEP && e.type() != NOT_VALID && e.type() != EXIT
                && e.type() != ACQUIRED) {
            return null;
        }
        for (String part : e.detail().split(" ")) {
            if (part.startsWith("checkedAt=")) {
                return Long.parseLong(part.substring("checkedAt=".length()));
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------ 6. hangs

    private void checkHangs(List<Event> sorted, Map<String, List<Event>> byWorker, Report report) {
        Invariant inv = Invariant.NO_HANG;
        report.checked(inv, byWorker.size());
        Map<String, List<long[]>> frozen = new HashMap<>();
        Map<String, Long> ended = new HashMap<>();
        for (int i = 0; i < sorted.size(); i++) {
            Event e = sorted.get(i);
            if (e.type() == HUNG) {
                report.violation(inv, e.detail());
            } else if (e.type() == EXITED) {
                ended.put(e.detail().split(" ")[0], e.nanos());
            } else if (e.type() == FAULT_START && e.detail().startsWith(Fault.PAUSE_HOLDER.label())) {
                long end = Long.MAX_VALUE / 2;
                for (int j = i + 1; j < sorted.size(); j++) {
                    if (sorted.get(j).type() == FAULT_END) {
                        end = sorted.get(j).nanos();
                        break;
                    }
                }
                frozen.computeIfAbsent(LockKind.processOf(e.detail().split(" ")[1]), k -> new ArrayList<>())
                        .add(new long[] {e.nanos(), end});
            }
        }
        long limit = bounds.hangMs() * MS;
        byWorker.forEach((worker, events) -> {
            List<Long> times = new ArrayList<>();
            events.forEach(e -> times.add(e.nanos()));
            String process = LockKind.processOf(worker);
            Long end = ended.get(process);
            if (end != null) {
                times.add(end);
            }
            for (int i = 1; i < times.size(); i++) {
                long from = times.get(i - 1);
                long to = times.get(i);
                long gap = to - from - frozenWithin(frozen.getOrDefault(process, List.of()), from, to);
                if (gap > limit) {
                    report.violation(inv, worker + " went " + gap / MS + " ms without an event (from " + ms(from)
                            + "; bound " + bounds.hangMs() + " ms)");
                }
            }
        });
    }

    private static long frozenWithin(List<long[]> windows, long from, long to) {
        long total = 0;
        for (long[] w : windows) {
            long a = Math.max(from, w[0]);
            long b = Math.min(to, w[1]);
            if (b > a) {
                total += b - a;
            }
        }
        return total;
    }

    // ------------------------------------------------------------------------------------------ 7. Redis failures

    private void checkRedisFailures(List<Event> sorted, Map<String, List<Event>> byWorker, Report report) {
        Invariant inv = Invariant.REDIS_FAILURES_SURFACE;
        int checked = 0;
        String expectedPrefix = "io.dlock.LockException: ";
        for (Event e : sorted) {
            if (e.type() == ACQUIRE_ERROR || e.type() == UNLOCK_ERROR) {
                checked++;
                if (!e.detail().startsWith(expectedPrefix)) {
                    report.violation(inv, e.source() + " " + e.type() + " is not a LockException: " + e.detail());
                } else if (!e.detail().contains("'" + LockKind.ofSource(e.source()).lockName() + "'")) {
                    report.violation(inv, e.source() + " " + e.type() + " does not name the lock: " + e.detail());
                } else {
                    report.count("LockException: " + kindOf(e.detail()));
                }
            }
        }
        List<long[]> silent = new ArrayList<>();
        Long down = null;
        for (Event e : sorted) {
            if (e.type() == REDIS_DOWN) {
                down = e.nanos();
            } else if (e.type() == REDIS_UP && down != null) {
                silent.add(new long[] {down, e.nanos()});
                down = null;
            }
        }
        for (long[] w : silent) {
            checked++;
            byWorker.forEach((worker, events) -> {
                for (int i = 0; i < events.size(); i++) {
                    Event call = events.get(i);
                    boolean acquire = call.type() == ACQUIRE_START;
                    boolean unlock = call.type() == EXIT;
                    if (!(acquire || unlock) || call.nanos() - w[0] <= 0 || call.nanos() - w[1] >= 0) {
                        continue;
                    }
                    Event outcome = outcome(events, i, acquire);
                    if (outcome != null && outcome.nanos() - w[1] < 0 && succeeded(outcome)) {
                        report.violation(inv, worker + " " + (acquire ? "acquired" : "unlocked") + " at "
                                + ms(outcome.nanos()) + " with a request sent at " + ms(call.nanos())
                                + ", while Redis could not answer (" + ms(w[0]) + ".." + ms(w[1]) + ")");
                    }
                }
            });
        }
        report.checked(inv, checked);
    }

    private static Event outcome(List<Event> events, int from, boolean acquire) {
        for (int i = from + 1; i < events.size(); i++) {
            Event e = events.get(i);
            if (acquire && (e.type() == ACQUIRED || e.type() == ACQUIRE_TIMEOUT || e.type() == ACQUIRE_ERROR)) {
                return e;
            }
            if (!acquire && (e.type() == UNLOCKED || e.type() == UNLOCK_NOT_HELD || e.type() == UNLOCK_ERROR)) {
                return e;
            }
        }
        return null;
    }

    private static boolean succeeded(Event outcome) {
        return outcome.type() == ACQUIRED || outcome.type() == UNLOCKED || outcome.type() == UNLOCK_NOT_HELD;
    }

    /** "did not answer in time", "unreachable", … : the part of a LockException message after the operation. */
    private static String kindOf(String detail) {
        if (detail.contains("did not answer in time")) {
            return "Redis did not answer in time";
        }
        if (detail.contains("unreachable") || detail.contains("Connection refused")) {
            return "Redis unreachable";
        }
        if (detail.contains("Redis error")) {
            return "Redis error";
        }
        return "other";
    }

    // ------------------------------------------------------------------------------------------ 8. dropped releases

    /**
     * Judges the nemesis' watch after each {@code release-drop} and counts the releases it hit: those sent while
     * Redis held scripts back (from its {@code REDIS_DOWN} to the cut), by how they ended.
     */
    private void checkDroppedReleases(List<Event> sorted, Map<String, List<Event>> byWorker, Report report) {
        Invariant inv = Invariant.FAILED_RELEASE_ENDS;
        Long pausedAt = null;
        for (Event e : sorted) {
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
                countHitReleases(pausedAt, e.nanos(), byWorker, report);
                pausedAt = null;
            }
        }
    }

    private static void countHitReleases(long pausedAt, long cutAt, Map<String, List<Event>> byWorker,
                                         Report report) {
        byWorker.forEach((worker, events) -> {
            for (int i = 0; i < events.size(); i++) {
                Event exit = events.get(i);
                if (exit.type() != EXIT || exit.nanos() - pausedAt <= 0 || exit.nanos() - cutAt >= 0) {
                    continue;
                }
                Event outcome = outcome(events, i, false);
                String how = outcome == null ? "killed before it ended"
                        : outcome.type() == UNLOCKED ? "unlocked (sent again after the reconnect)"
                        : outcome.type() == UNLOCK_NOT_HELD ? "not held (IllegalMonitorStateException)"
                        : outcome.nanos() - cutAt < 0 ? "failed: timed out before the cut, never ran"
                        : "failed: connection cut";
                report.count("releases hit by release-drop: " + how);
                report.countForKind(LockKind.ofSource(worker), "releases hit by release-drop");
            }
        });
    }

    // ------------------------------------------------------------------------------------------ 9. leftovers

    private void checkLeftovers(List<Event> sorted, Report report) {
        Invariant inv = Invariant.NOTHING_LEFT;
        report.checked(inv, 1);
        for (Event e : sorted) {
            if (e.type() == LEFTOVER) {
                report.violation(inv, e.detail());
            } else if (e.type() == NOTE && e.detail().startsWith("skip ")) {
                report.note(e.detail());
            }
        }
    }

    private String ms(long nanos) {
        return "t=" + Math.floorDiv(nanos - origin, MS) + "ms";
    }

    /** For the report: counts of event types. */
    static Map<Event.Type, Integer> typeCounts(List<Event> events) {
        Map<Event.Type, Integer> counts = new LinkedHashMap<>();
        for (Event.Type t : Event.Type.values()) {
            counts.put(t, 0);
        }
        for (Event e : events) {
            counts.merge(e.type(), 1, Integer::sum);
        }
        return counts;
    }
}
