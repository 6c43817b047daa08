package io.dlock.internal.metrics;

import io.dlock.LeaseLostEvent;
import io.dlock.LockKind;
import io.dlock.internal.lease.Hold;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Records one client's {@link LockEvents} as Micrometer meters in every bound registry ({@link MicrometerMeters}), and
 * each acquisition as an {@link Observation} when an {@link ObservationRegistry} is given.
 *
 * <h2>State</h2>
 * <ul>
 *   <li>{@link #liveHolds}: every hold this client took while these metrics were attached, from its first grant (or
 *       the hand-off that created it) until the renewer reports its end (release, loss, discard). It gives the
 *       {@code holds} gauges, the start of the {@code hold} timer, and the kind and name of a hold whose renewal or
 *       loss is reported. Holds taken before the metrics were attached are not in it and are not counted.</li>
 *   <li>{@link #waiters}: acquisitions started and not yet ended, per kind.</li>
 * </ul>
 * A grant may be reported after the hold already ended (the caller released it before this recorder heard of the
 * grant); such a record is removed again at once, so the gauges never keep a hold that is gone.
 *
 * <p>Thread-safe, non-blocking; never throws into the lock code (a failing meter is the registry's business).
 */
public final class MicrometerLockEvents implements LockEvents {
    private static final LockKind[] KINDS = LockKind.values();

    /** What is known of one live hold. */
    private record HoldRecord(LockKind kind, String taggedName, long startNanos) {
    }

    private final String prefix;
    private final Predicate<String> nameTags;
    private final ObservationRegistry observations;
    private final AtomicInteger[] holds = newCounters();
    private final AtomicInteger[] waiters = newCounters();
    private final ConcurrentHashMap<Hold, HoldRecord> liveHolds = new ConcurrentHashMap<>();
    private final List<MicrometerMeters> registries = new CopyOnWriteArrayList<>();

    /**
     * @param prefix       the first part of every meter name, e.g. {@code dlock}
     * @param nameTags     lock names whose meters get a {@code name} tag; null for none
     * @param observations where acquisitions are observed; null for none
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

    /** Registers this client's meters in {@code registry}; from now on events are recorded there too. */
    public void bindTo(MeterRegistry registry) {
        registries.add(new MicrometerMeters(registry, prefix, nameTags != null, holds, waiters));
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

    @Override
    public Acquisition acquireStarted(LockKind kind, String lockName) {
        waiters[kind.ordinal()].incrementAndGet();
        Observation observation = null;
        if (observations != null) {
            observation = Observation.createNotStarted(prefix + ".acquire", observations)
                    .contextualName(prefix + " acquire " + kind.tagValue())
                    .lowCardinalityKeyValue("kind", kind.tagValue())
                    .highCardinalityKeyValue("name", lockName)
                    .start();
        }
        return new MeteredAcquisition(kind, taggedName(lockName), System.nanoTime(), observation);
    }

    /** One acquisition in progress. Its attempts are sequential (one in flight at a time), never concurrent. */
    private final class MeteredAcquisition implements Acquisition {
        private final LockKind kind;
        private final String taggedName;
        private final long startNanos;
        private final Observation observation;
        private volatile int attempts;

        MeteredAcquisition(LockKind kind, String taggedName, long startNanos, Observation observation) {
            this.kind = kind;
            this.taggedName = taggedName;
            this.startNanos = startNanos;
            this.observation = observation;
        }

        @Override
        public void attempted() {
            attempts++; // not atomic, and need not be: attempts never overlap
        }

        @Override
        public void granted(Hold hold) {
            holdStarted(kind, taggedName, hold);
        }

        @Override
        public void ended(Boolean acquired, Throwable error) {
            long nanos = System.nanoTime() - startNanos;
            waiters[kind.ordinal()].decrementAndGet();
            Outcome outcome = error == null ? (Boolean.TRUE.equals(acquired) ? Outcome.ACQUIRED : Outcome.TIMED_OUT)
                    : error instanceof CancellationException ? Outcome.INTERRUPTED : Outcome.FAILED;
            for (MicrometerMeters meters : registries) {
                meters.acquisition(kind, outcome, nanos, attempts, taggedName);
            }
            if (observation != null) {
                observation.lowCardinalityKeyValue("outcome", outcome.tag());
                if (outcome == Outcome.FAILED) {
                    observation.error(error);
                }
                observation.stop();
            }
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
        if (hold.acquisitions() == 0) {
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
    public void handedOff(LockKind kind, String lockName, Hold receiverHold) {
        String taggedName = taggedName(lockName);
        for (MicrometerMeters meters : registries) {
            meters.handedOff(kind, taggedName);
        }
        holdStarted(kind, taggedName, receiverHold);
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
}
