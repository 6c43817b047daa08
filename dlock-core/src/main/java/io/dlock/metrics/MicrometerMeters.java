package io.dlock.metrics;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The meters of one client in one {@link MeterRegistry} (names and tags: {@code io.dlock.metrics.LockMetrics}).
 *
 * <p>Every meter without a lock name is registered up front, one per combination of tag values, and kept in arrays
 * indexed by the enums' ordinals, so that recording costs no lookup. When per-name tags are on, those meters carry
 * {@code name=*} (every tagged meter of one name must have the same tag keys, as Prometheus requires), and the meters
 * of a matching lock name are registered on first use and kept for the life of this object: the name filter bounds
 * how many there are.
 *
 * <p>Thread-safe. {@link #remove()} unregisters everything this object registered (including per-name meters created
 * concurrently with it: it keeps going until none is left).
 */
final class MicrometerMeters {
    /** The {@code name} tag's value on meters that count every lock whose name is not tagged. */
    static final String OTHER_NAMES = "*";
    /** The name of the {@code holds} gauges after the prefix: the meter that tells whether a registry has them. */
    static final String HOLDS = ".holds";

    private static final LockKind[] KINDS = LockKind.values();
    private static final LockEventListener.Outcome[] OUTCOMES = LockEventListener.Outcome.values();
    private static final LeaseLostEvent.Reason[] REASONS = LeaseLostEvent.Reason.values();

    private record NamedKey(String meter, LockKind kind, String tagValue, String lockName) {
    }

    private final MeterRegistry registry;
    private final String prefix;
    private final boolean nameTags;
    private final List<Meter> registered = new CopyOnWriteArrayList<>();
    private final Map<NamedKey, Meter> named = new ConcurrentHashMap<>();

    private final Timer[][] acquire = new Timer[KINDS.length][OUTCOMES.length];
    private final DistributionSummary[] attempts = new DistributionSummary[KINDS.length];
    private final Timer[] hold = new Timer[KINDS.length];
    private final Counter[][] lost = new Counter[KINDS.length][REASONS.length];
    private final Counter[][] renewals = new Counter[KINDS.length][2];
    private final Counter[] handoffs = new Counter[KINDS.length];
    private final Counter[] renewalCalls = new Counter[2];
    private final SynchronizerMeters synchronizers;
    private final ElectionMeters elections;

    /**
     * @param holds   holds of this client per kind, read by the {@code holds} gauges
     * @param waiters acquisitions in progress per kind, read by the {@code waiters} gauges
     * @param permits leased permits this client holds, read by the {@code permits.held} gauge
     * @param leading per election name, how many of this client's elections of that name lead now
     */
    MicrometerMeters(MeterRegistry registry, String prefix, boolean nameTags, AtomicInteger[] holds,
                     AtomicInteger[] waiters, AtomicInteger permits, Function<String, AtomicInteger> leading) {
        this.registry = registry;
        this.prefix = prefix;
        this.nameTags = nameTags;
        for (LockKind kind : KINDS) {
            int k = kind.ordinal();
            for (LockEventListener.Outcome outcome : OUTCOMES) {
                acquire[k][outcome.ordinal()] = acquireTimer(kind, outcomeTag(outcome), OTHER_NAMES);
            }
            attempts[k] = attemptsSummary(kind, OTHER_NAMES);
            hold[k] = holdTimer(kind, OTHER_NAMES);
            for (LeaseLostEvent.Reason reason : REASONS) {
                lost[k][reason.ordinal()] = lostCounter(kind, reasonTag(reason), OTHER_NAMES);
            }
            renewals[k][0] = renewalCounter(kind, "ok", OTHER_NAMES);
            renewals[k][1] = renewalCounter(kind, "failed", OTHER_NAMES);
            handoffs[k] = handoffCounter(kind, OTHER_NAMES);
            keep(Gauge.builder(prefix + HOLDS, holds[k], AtomicInteger::get)
                    .description("Holds of this client right now (an owner's re-entries count once)")
                    .baseUnit("holds").tags("kind", kind.tagValue()).strongReference(true).register(registry));
            keep(Gauge.builder(prefix + ".waiters", waiters[k], AtomicInteger::get)
                    .description("Acquisitions of this client in progress right now (attempting or waiting)")
                    .baseUnit("acquisitions").tags("kind", kind.tagValue()).strongReference(true).register(registry));
        }
        renewalCalls[0] = keep(Counter.builder(prefix + ".renewal.calls").tags("result", "ok")
                .description("Watchdog renewal calls (one script call renews a batch of holds)").register(registry));
        renewalCalls[1] = keep(Counter.builder(prefix + ".renewal.calls").tags("result", "failed")
                .description("Watchdog renewal calls (one script call renews a batch of holds)").register(registry));
        synchronizers = new SynchronizerMeters(registry, prefix, permits, registered::add);
        elections = new ElectionMeters(registry, prefix, leading, registered::add);
    }

    /** @return the meters of leader elections */
    ElectionMeters elections() {
        return elections;
    }

    /** @return the meters of semaphores and latches */
    SynchronizerMeters synchronizers() {
        return synchronizers;
    }

    /** @return the value of the {@code outcome} tag */
    static String outcomeTag(LockEventListener.Outcome outcome) {
        return switch (outcome) {
            case ACQUIRED -> "acquired";
            case TIMED_OUT -> "timed_out";
            case INTERRUPTED -> "interrupted";
            case FAILED -> "failed";
        };
    }

    /** @return the value of the {@code reason} tag */
    static String reasonTag(LeaseLostEvent.Reason reason) {
        return switch (reason) {
            case EXPIRED -> "expired";
            case REMOVED -> "removed";
            case RENEWAL_FAILED -> "renewal_failed";
        };
    }

    // ---- recording; lockName null = not tagged ----

    void acquisition(LockKind kind, LockEventListener.Outcome outcome, long nanos, int redisAttempts, String lockName) {
        // the attempts first: whoever sees the acquisition counted by the timer then sees its attempts too (a
        // summary's count and total are updated one after the other, not atomically)
        DistributionSummary summary = lockName == null ? attempts[kind.ordinal()]
                : named(new NamedKey("attempts", kind, null, lockName), key -> attemptsSummary(kind, lockName));
        summary.record(redisAttempts);
        Timer timer = lockName == null ? acquire[kind.ordinal()][outcome.ordinal()]
                : named(new NamedKey("acquire", kind, outcomeTag(outcome), lockName),
                        key -> acquireTimer(kind, outcomeTag(outcome), lockName));
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    void held(LockKind kind, long nanos, String lockName) {
        Timer timer = lockName == null ? hold[kind.ordinal()]
                : named(new NamedKey("hold", kind, null, lockName), key -> holdTimer(kind, lockName));
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    void lost(LockKind kind, LeaseLostEvent.Reason reason, String lockName) {
        Counter counter = lockName == null ? lost[kind.ordinal()][reason.ordinal()]
                : named(new NamedKey("lost", kind, reasonTag(reason), lockName),
                        key -> lostCounter(kind, reasonTag(reason), lockName));
        counter.increment();
    }

    void renewed(LockKind kind, boolean ok, String lockName) {
        String result = ok ? "ok" : "failed";
        Counter counter = lockName == null ? renewals[kind.ordinal()][ok ? 0 : 1]
                : named(new NamedKey("renewals", kind, result, lockName),
                        key -> renewalCounter(kind, result, lockName));
        counter.increment();
    }

    void handedOff(LockKind kind, String lockName) {
        Counter counter = lockName == null ? handoffs[kind.ordinal()]
                : named(new NamedKey("handoffs", kind, null, lockName), key -> handoffCounter(kind, lockName));
        counter.increment();
    }

    void renewalCall(boolean ok) {
        renewalCalls[ok ? 0 : 1].increment();
    }

    /** Unregisters every meter this object registered. */
    void remove() {
        while (!registered.isEmpty()) {
            for (Meter meter : registered) {
                registry.remove(meter);
                registered.remove(meter);
            }
        }
        named.clear();
        elections.clear();
    }

    // ---- meter definitions ----

    private Timer acquireTimer(LockKind kind, String outcome, String lockName) {
        return keep(Timer.builder(prefix + ".acquire")
                .description("Acquisitions, from the call to its result, by outcome")
                .tags(tags(kind, lockName).and("outcome", outcome)).register(registry));
    }

    private DistributionSummary attemptsSummary(LockKind kind, String lockName) {
        return keep(DistributionSummary.builder(prefix + ".acquire.attempts")
                .description("Redis attempts per acquisition (0 for one handed over by another owner of this client)")
                .baseUnit("attempts").tags(tags(kind, lockName)).register(registry));
    }

    private Timer holdTimer(LockKind kind, String lockName) {
        return keep(Timer.builder(prefix + ".hold")
                .description("Holds, from acquisition to the release of the owner's last acquisition")
                .tags(tags(kind, lockName)).register(registry));
    }

    private Counter lostCounter(LockKind kind, String reason, String lockName) {
        return keep(Counter.builder(prefix + ".lease.lost")
                .description("Holds this client lost before releasing them, by reason")
                .tags(tags(kind, lockName).and("reason", reason)).register(registry));
    }

    private Counter renewalCounter(LockKind kind, String result, String lockName) {
        return keep(Counter.builder(prefix + ".renewals")
                .description("Watchdog renewals of holds (one per hold and renewal call), by result")
                .tags(tags(kind, lockName).and("result", result)).register(registry));
    }

    private Counter handoffCounter(LockKind kind, String lockName) {
        return keep(Counter.builder(prefix + ".handoffs")
                .description("Locks handed by a releasing owner straight to a waiting owner of this client")
                .tags(tags(kind, lockName)).register(registry));
    }

    private Tags tags(LockKind kind, String lockName) {
        Tags tags = Tags.of("kind", kind.tagValue());
        return nameTags ? tags.and("name", lockName) : tags;
    }

    @SuppressWarnings("unchecked")
    private <M extends Meter> M named(NamedKey key, Function<NamedKey, M> create) {
        return (M) named.computeIfAbsent(key, create);
    }

    private <M extends Meter> M keep(M meter) {
        registered.add(meter);
        return meter;
    }
}
