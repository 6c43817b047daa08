package io.dlock.chaos;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a run's history (all events of all processes, on one monotonic clock) against the invariants. A pure
 * function of the events: unit-tested with made-up histories that break each invariant.
 *
 * <p>Holds are per lock loop (source {@code w<n>/<kind>/t<i>}): each loop is an owner of its own, several of them
 * sharing one client. The fencing invariants (1, 2) concern the fenced lock, the others every {@link Workload}. Two
 * holds <em>conflict</em> when they are on the same lock, in different loops (owners, whether of one client or of
 * two), and not both read holds of the read-write lock.
 *
 * <ol>
 *   <li>{@link Invariant#TOKENS_INCREASE}: an acquisition that completed before another was requested has the
 *       smaller token; no token is issued to two owners. (An owner that gets the token it already had, because
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
 *   <li>{@link Invariant#PERMITS_NO_FAULT}, {@link Invariant#PERMITS_VALID}: the semaphores' holders, counted as 3
 *       and 4 judge pairs ({@link PermitChecks}), never outnumber the permits.</li>
 *   <li>{@link Invariant#PERMITS_CONSERVED}: at quiescence each semaphore's available permits plus those still
 *       held (by killed workers) are what was configured, counted call by call since the last Redis restart
 *       ({@link ConservationChecks}); no permit lost, none made up.</li>
 *   <li>{@link Invariant#LATCH_OPENS_BY_COUNT_DOWNS}: an await never answers true before its latch had its
 *       count-downs; a failure (the client reporting a lost latch) is not a violation ({@link LatchChecks}).</li>
 *   <li>{@link Invariant#HOLD_IN_REDIS}, under every fault: an owner inside its critical section finds its hold in
 *       Redis when it looks past its client ({@code PROBE}) while its client still claims the hold valid; only a
 *       Redis restart since the hold's request excuses an absence (the data is lost), and a look Redis did not
 *       answer proves nothing.</li>
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
 *   <li>{@link Invariant#NOTHING_HELD_BY_CANCELLED}: once a worker's loops stopped, its client holds nothing of the
 *       workloads that cancel (the reactive lock and semaphore, the cancelled multi-lock): every loop gave back what
 *       it knew it held, so what is left is a grant of a cancelled acquisition ({@link QuiescenceChecks}).</li>
 *   <li>{@link Invariant#ELECTION_TERMS}, {@link Invariant#ELECTION_FENCED}: the leader election's candidates
 *       ({@link ElectionLoop}) hear one revoked per elected, with rising epochs; its register never accepts a write
 *       whose guard began after its term's revocation, and rejects a stale one only near a fault
 *       ({@link ElectionChecks}).</li>
 *   <li>{@link Invariant#NOTHING_LEFT}: after the run, no key but the token counter, no subscription, no process.</li>
 * </ol>
 * Every invariant must judge at least one case: one that judged none fails the run ({@link Report#unjudged()}), so
 * that a checker gone silent cannot pass.
 * Each family of invariants has its own class, fed the same {@link History} and the {@link Hold}s built from it:
 * {@link FencingChecks} (1, 2), {@link ExclusionChecks} (3, 4), {@link PermitChecks}, {@link RedisHoldChecks} (5),
 * {@link HolderFaultChecks} (6, 7, 10), {@link LivenessChecks} (8, 9, 11) and {@link QuiescenceChecks}.
 */
public final class Checker {

    /** The invariants, in report order. */
    public enum Invariant {
        TOKENS_INCREASE("tokens strictly increase"),
        NO_STALE_WRITE("store never accepts a stale token"),
        NO_OVERLAP("no overlap while no fault is active"),
        VALID_HOLDS_EXCLUSIVE("holds known valid never overlap"),
        PERMITS_NO_FAULT("no more holders than permits, no fault near"),
        PERMITS_VALID("permits known valid never exceed the count"),
        PERMITS_CONSERVED("permits conserved at quiescence"),
        LATCH_OPENS_BY_COUNT_DOWNS("latch opens only by its count-downs"),
        HOLD_IN_REDIS("owner inside, claimed valid, has its Redis hold"),
        DEAD_HOLDER_FREED("dead holder's lock free within lease + 1 s"),
        PAUSED_HOLDER_LEARNS("paused holder learns of the loss before writing"),
        NO_HANG("no worker hangs"),
        REDIS_FAILURES_SURFACE("Redis failures surface as LockException"),
        FAILED_RELEASE_ENDS("dropped release's hold ends within lease + 1 s"),
        NOTHING_HELD_BY_CANCELLED("nothing held by a cancelled acquisition at quiescence"),
        ELECTION_TERMS("one revoked per elected, epochs rising"),
        ELECTION_FENCED("election writes: none after revocation, fenced"),
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

    private final Bounds bounds;

    public Checker(Bounds bounds) {
        this.bounds = bounds;
    }

    /** Checks {@code events} (any order). */
    public Report check(List<Event> events, Map<Fault, Integer> injected, ChaosSettings settings, String redisVersion,
                        Duration took) {
        History history = new History(events, bounds);
        Report report = new Report(settings, redisVersion, took, injected, history.sorted);
        List<Hold> holds = Hold.of(history);
        FencingChecks.check(history, holds.stream().filter(h -> h.kind() == Workload.FENCED).toList(), report);
        ExclusionChecks.check(history, holds, report);
        PermitChecks.check(history, holds, report);
        ConservationChecks.check(history, report);
        LatchChecks.check(history, report);
        FaultReach.count(history, holds, report);
        RedisHoldChecks.check(history, report);
        HolderFaultChecks.check(history, report);
        LivenessChecks.check(history, report);
        QuiescenceChecks.check(history, report);
        ElectionChecks.check(history, report);
        return report;
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
