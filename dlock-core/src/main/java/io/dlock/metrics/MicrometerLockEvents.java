package io.dlock.metrics;

import io.dlock.LeaderTerm;
import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The lock event listener behind {@code io.dlock.metrics.LockMetrics}: records one client's events as Micrometer
 * meters in every bound registry ({@link MicrometerMeters}), and each wait as an {@link Observation} when an
 * {@link ObservationRegistry} is given: a lock's acquisition, a semaphore's and a latch await alike start one in
 * {@link #observe} (on the caller's thread, from the {@code …Started} event) and end it in {@link #stop} (from their
 * {@link Acquisition#ended}), which records their timer too.
 *
 * <h2>State</h2>
 * <ul>
 *   <li>{@link #liveHolds}: every hold this client took while these metrics were attached, from its first grant (or
 *       the hand-off that created it) until the renewer reports its end (release, loss, discard). It gives the
 *       {@code holds} gauges, the start of the {@code hold} timer, and the kind and name of a hold whose renewal or
 *       loss is reported. Holds taken before the metrics were attached are not in it and are not counted.</li>
 *   <li>{@link #waiters}: acquisitions started and not yet ended, per kind.</li>
 *   <li>{@link #leading} and {@link #lastEpochs}: per election name, its leaders in this client now, and the highest
 *       epoch won; a term won with an epoch not above it counts as a regression (a defect: epochs must grow).</li>
 * </ul>
 * A grant may be reported after the hold already ended (the caller released it before this recorder heard of the
 * grant); such a record is removed again at once, so the gauges never keep a hold that is gone.
 *
 * <p>Thread-safe, non-blocking; never throws into the lock code (a failing meter is the registry's business).
 */
final class MicrometerLockEvents implements LockEventListener {
    private static final LockKind[] KINDS = LockKind.values();
    /** The observations' keys: low-cardinality {@code kind} and {@code outcome}, high-cardinality {@code name}. */
    static final String KIND_KEY = "kind";
    static final String OUTCOME_KEY = "outcome";
    static final String NAME_KEY = "name";
    /** The {@code kind} of the observations of permit acquisitions and latch awaits (a lock's: its tag value). */
    static final String SEMAPHORE_KIND = "semaphore";
    static final String LEASED_SEMAPHORE_KIND = "leased_semaphore";
    static final String LATCH_KIND = "latch";

    /** What is known of one live hold. */
    private record HoldRecord(LockKind kind, String taggedName, long startNanos) {
    }

    private final String prefix;
    private final Predicate<String> nameTags;
    private final ObservationRegistry observations;
    private final AtomicInteger[] holds = newCounters();
    private final AtomicInteger[] waiters = newCounters();
    /** The ids of the leased permits this client holds (granted since this object listens, not released or lost). */
    private final Set<String> livePermits = ConcurrentHashMap.newKeySet();
    /** {@link #livePermits}' size, for the gauge. */
    private final AtomicInteger permitsHeld = new AtomicInteger();
    private final ConcurrentHashMap<Hold, HoldRecord> liveHolds = new ConcurrentHashMap<>();
    private final List<MicrometerMeters> registries = new CopyOnWriteArrayList<>();
    /** Per election name: how many of this client's elections of that name lead now (the {@code leader} gauge). */
    private final ConcurrentHashMap<String, AtomicInteger> leading = new ConcurrentHashMap<>();
    /** Per election name: the highest epoch this client's elections won (while these metrics listened). */
    private final ConcurrentHashMap<String, Long> lastEpochs = new ConcurrentHashMap<>();

    /**
     * @param prefix       the first part of every meter name, e.g. {@code dlock}
     * @param nameTags     lock names whose meters get a {@code name} tag; null for none
     * @param observations where acquisitions (of locks and permits) and latch awaits are observed; null for none
     */
    public MicrometerLockEvents(String prefix, Predicate<String> nameTags, ObservationRegistry observations) {
        this.prefix = prefix;
        this.nameTags = nameTags;
        this.observations = observations == null || observations.isNoop() ? null : observations;
    }

    private static AtomicInteger[] newCounters() {
        AtomicInteger[] counters = new AtomicInteger[KINDS.length];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new AtomicInteger();
        }
        return counters;
    }

    /**
     * Registers this client's meters in {@code registry}; from now on events are recorded there too.
     *
     * @throws IllegalStateException when {@code registry} has this prefix's meters already (from another
     *                               {@code LockMetrics}, or from this one): they would count twice
     */
    public void bindTo(MeterRegistry registry) {
        // Locks the registry against other dlock binders only (Micrometer locks its own map internally), so that of
        // two bound at once the second sees the first's meters.
        synchronized (registry) {
            if (registry.find(prefix + MicrometerMeters.HOLDS).meter() != null) {
                throw new IllegalStateException("this MeterRegistry already has dlock's meters named '" + prefix
                        + ".*' (another LockMetrics, or this one, is bound to it): their counts would add up. Bind one "
                        + "LockMetrics per registry, or give each its own Builder.prefix");
            }
            MicrometerMeters meters = new MicrometerMeters(registry, prefix, nameTags != null, holds, waiters,
                    permitsHeld, this::leading);
            leading.keySet().forEach(meters.elections()::known);
            registries.add(meters);
        }
    }

    /** Unregisters every meter from every registry; later events are recorded nowhere. */
    public void removeMeters() {
        for (MicrometerMeters meters : registries) {
            registries.remove(meters);
            meters.remove();
        }
    }

    /** @return {@code lockName} when its meters carry the name, else null */
    private String taggedName(String lockName) {
        return nameTags != null && nameTags.test(lockName) ? lockName : null;
    }

    /**
     * Starts observing one wait, when observations are on.
     *
     * @param operation the observation's name after the prefix: {@code acquire}, {@code permit.acquire},
     *                  {@code latch.await}
     * @param verb      what the caller does, for the contextual name ({@code acquire}, {@code await})
     * @param kind      the {@code kind} key's value
     * @param name      the object's name, the high-cardinality key {@code name}
     * @return the started observation; null when observations are off
     */
    private Observation observe(String operation, String verb, String kind, String name) {
        if (observations == null) {
            return null;
        }
        return Observation.createNotStarted(prefix + "." + operation, observations)
                .contextualName(prefix + " " + verb + " " + kind)
                .lowCardinalityKeyValue(KIND_KEY, kind)
                .highCardinalityKeyValue(NAME_KEY, name)
                .start();
    }

    /** Ends {@code observation} (none when null) with its {@code outcome} key and the failure, if any. */
    private static void stop(Observation observation, String outcome, Throwable failure) {
        if (observation == null) {
            return;
        }
        observation.lowCardinalityKeyValue(OUTCOME_KEY, outcome);
        if (failure != null) {
            observation.error(failure);
        }
        observation.stop();
    }

    @Override
    public Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
        waiters[kind.ordinal()].incrementAndGet();
        return new MeteredAcquisition(this, kind, taggedName(lockName), System.nanoTime(),
                observe("acquire", "acquire", kind.tagValue(), lockName), new AtomicInteger());
    }

    /**
     * One acquisition in progress. Its attempts are sequential (one in flight at a time), never concurrent.
     *
     * @param events   the recorder it reports to
     * @param attempts the attempts so far
     */
    private record MeteredAcquisition(MicrometerLockEvents events, LockKind kind, String taggedName, long startNanos,
                                      Observation observation, AtomicInteger attempts) implements Acquisition {
        @Override
        public void attempted() {
            attempts.incrementAndGet();
        }

        @Override
        public void granted(Hold hold) {
            events.holdStarted(kind, taggedName, hold);
        }

        @Override
        public void ended(Outcome outcome, Throwable failure) {
            long nanos = System.nanoTime() - startNanos;
            events.waiters[kind.ordinal()].decrementAndGet();
            for (MicrometerMeters meters : events.registries) {
                meters.acquisition(kind, outcome, nanos, attempts.get(), taggedName);
            }
            events.stop(observation, MicrometerMeters.outcomeTag(outcome), failure);
        }
    }

    /** Records the start of {@code hold} unless known already (a re-entry); undoes it if the hold already ended. */
    private void holdStarted(LockKind kind, String taggedName, Hold hold) {
        if (liveHolds.containsKey(hold)) {
            return;
        }
        HoldRecord record = new HoldRecord(kind, taggedName, System.nanoTime());
        if (liveHolds.putIfAbsent(hold, record) != null) {
            return;
        }
        holds[kind.ordinal()].incrementAndGet();
        if (hold.holdCount() == 0) {
            ended(hold); // released or lost before this grant was reported
        }
    }

    /** @return the record of {@code hold}, removed, with the gauge brought down; null if unknown */
    private HoldRecord ended(Hold hold) {
        HoldRecord record = liveHolds.remove(hold);
        if (record != null) {
            holds[record.kind().ordinal()].decrementAndGet();
        }
        return record;
    }

    @Override
    public void handedOff(Hold receiver) {
        String taggedName = taggedName(receiver.lockName());
        for (MicrometerMeters meters : registries) {
            meters.handedOff(receiver.kind(), taggedName);
        }
        holdStarted(receiver.kind(), taggedName, receiver);
    }

    @Override
    public void holdReleased(Hold hold) {
        HoldRecord record = ended(hold);
        if (record == null) {
            return;
        }
        long nanos = System.nanoTime() - record.startNanos();
        for (MicrometerMeters meters : registries) {
            meters.held(record.kind(), nanos, record.taggedName());
        }
    }

    @Override
    public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
        HoldRecord record = ended(hold);
        if (record == null) {
            return;
        }
        for (MicrometerMeters meters : registries) {
            meters.lost(record.kind(), reason, record.taggedName());
        }
    }

    @Override
    public void holdDiscarded(Hold hold) {
        ended(hold);
    }

    @Override
    public void renewalCall(boolean ok) {
        for (MicrometerMeters meters : registries) {
            meters.renewalCall(ok);
        }
    }

    @Override
    public void holdRenewed(Hold hold, boolean ok) {
        HoldRecord record = liveHolds.get(hold);
        if (record == null) {
            return;
        }
        for (MicrometerMeters meters : registries) {
            meters.renewed(record.kind(), ok, record.taggedName());
        }
    }

    // ---- semaphores and latches (no name tags)

    @Override
    public Acquisition permitAcquisitionStarted(String semaphoreName, boolean leased) {
        return new MeteredWait(this, leased ? Waited.LEASED_SEMAPHORE : Waited.SEMAPHORE, System.nanoTime(),
                observe("permit.acquire", "acquire", leased ? LEASED_SEMAPHORE_KIND : SEMAPHORE_KIND,
                        semaphoreName));
    }

    @Override
    public Acquisition latchAwaitStarted(String latchName) {
        return new MeteredWait(this, Waited.LATCH, System.nanoTime(), observe("latch.await", "await", LATCH_KIND,
                latchName));
    }

    /** What a {@link MeteredWait} waited for. */
    private enum Waited {
        SEMAPHORE, LEASED_SEMAPHORE, LATCH
    }

    /**
     * One permit acquisition or latch await in progress: its timer, and its observation when one was started.
     *
     * @param events the recorder it reports to
     */
    private record MeteredWait(MicrometerLockEvents events, Waited waited, long startNanos, Observation observation)
            implements Acquisition {
        @Override
        public void ended(Outcome outcome, Throwable failure) {
            long nanos = System.nanoTime() - startNanos;
            for (MicrometerMeters meters : events.registries) {
                if (waited == Waited.LATCH) {
                    meters.synchronizers().latchAwait(outcome, nanos);
                } else {
                    meters.synchronizers().permitAcquisition(waited == Waited.LEASED_SEMAPHORE, outcome, nanos);
                }
            }
            events.stop(observation, waited == Waited.LATCH ? SynchronizerMeters.latchOutcomeTag(outcome)
                    : MicrometerMeters.outcomeTag(outcome), failure);
        }
    }

    @Override
    public void permitGranted(String semaphoreName, String permitId) {
        if (livePermits.add(permitId)) {
            permitsHeld.incrementAndGet();
        }
    }

    @Override
    public void permitReleased(String semaphoreName, String permitId) {
        if (livePermits.remove(permitId)) {
            permitsHeld.decrementAndGet();
        }
    }

    @Override
    public void permitLost(String semaphoreName, String permitId, LeaseLostEvent.Reason reason) {
        if (livePermits.remove(permitId)) {
            permitsHeld.decrementAndGet();
        }
        for (MicrometerMeters meters : registries) {
            meters.synchronizers().permitLost(reason);
        }
    }

    @Override
    public void latchCountedDown(String latchName) {
        for (MicrometerMeters meters : registries) {
            meters.synchronizers().countedDown();
        }
    }

    // ---- leader elections (always tagged with the election's name)

    private AtomicInteger leading(String election) {
        return leading.computeIfAbsent(election, key -> new AtomicInteger());
    }

    @Override
    public void leaderElected(String electionName, long epoch) {
        boolean[] regressed = new boolean[1];
        lastEpochs.merge(electionName, epoch, (last, won) -> {
            regressed[0] = won <= last;
            return Math.max(last, won);
        });
        leading(electionName).incrementAndGet();
        for (MicrometerMeters meters : registries) {
            meters.elections().elected(electionName, regressed[0]);
        }
    }

    @Override
    public void leaderRevoked(String electionName, long epoch, LeaderTerm.Cause cause, long termNanos) {
        // a term won before these metrics listened is not in the gauge: never below 0
        leading(electionName).updateAndGet(n -> Math.max(0, n - 1));
        for (MicrometerMeters meters : registries) {
            meters.elections().revoked(electionName, cause, termNanos);
        }
    }

    @Override
    public void leaderRenewed(String electionName, boolean ok) {
        for (MicrometerMeters meters : registries) {
            meters.elections().renewed(electionName, ok);
        }
    }
}
