package io.dlock.metrics;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The meters of one client's semaphores and count-down latches in one {@link MeterRegistry} (names and tags:
 * {@code io.dlock.metrics.LockMetrics}). All registered up front, one per combination of tag values, in arrays
 * indexed by ordinals, so that recording costs no lookup. They carry no semaphore or latch name. Thread-safe.
 */
final class SynchronizerMeters {
    private static final LockEventListener.Outcome[] OUTCOMES = LockEventListener.Outcome.values();
    private static final LeaseLostEvent.Reason[] REASONS = LeaseLostEvent.Reason.values();

    /** [plain = 0, leased = 1][outcome]. */
    private final Timer[][] permitAcquire = new Timer[2][OUTCOMES.length];
    private final Counter[] permitLost = new Counter[REASONS.length];
    private final Timer[] latchAwait = new Timer[OUTCOMES.length];
    private final Counter countDowns;

    /**
     * @param permitsHeld leased permits this client holds, read by the gauge
     * @param keep        told of every meter registered (for its removal)
     */
    SynchronizerMeters(MeterRegistry registry, String prefix, AtomicInteger permitsHeld, Consumer<Meter> keep) {
        for (LockEventListener.Outcome outcome : OUTCOMES) {
            for (int leased = 0; leased < 2; leased++) {
                permitAcquire[leased][outcome.ordinal()] = kept(keep, Timer.builder(prefix + ".permit.acquire")
                        .description("Semaphore acquisitions, from the call to its result, by outcome")
                        .tags("semaphore", leased == 1 ? "leased" : "plain",
                                "outcome", MicrometerMeters.outcomeTag(outcome))
                        .register(registry));
            }
            latchAwait[outcome.ordinal()] = kept(keep, Timer.builder(prefix + ".latch.await")
                    .description("Count-down latch awaits, from the call to its result, by outcome")
                    .tags("outcome", latchOutcomeTag(outcome)).register(registry));
        }
        for (LeaseLostEvent.Reason reason : REASONS) {
            permitLost[reason.ordinal()] = kept(keep, Counter.builder(prefix + ".permit.lost")
                    .description("Leased permits this client lost before releasing them, by reason")
                    .tags("reason", MicrometerMeters.reasonTag(reason)).register(registry));
        }
        countDowns = kept(keep, Counter.builder(prefix + ".latch.countdowns")
                .description("Count-downs of count-down latches sent by this client").register(registry));
        kept(keep, Gauge.builder(prefix + ".permits.held", permitsHeld, AtomicInteger::get)
                .description("Leased semaphore permits this client holds right now")
                .baseUnit("permits").strongReference(true).register(registry));
    }

    /** @return the {@code outcome} tag of a latch await: {@code opened} for a latch that reached zero */
    static String latchOutcomeTag(LockEventListener.Outcome outcome) {
        return outcome == LockEventListener.Outcome.ACQUIRED ? "opened" : MicrometerMeters.outcomeTag(outcome);
    }

    void permitAcquisition(boolean leased, LockEventListener.Outcome outcome, long nanos) {
        permitAcquire[leased ? 1 : 0][outcome.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    void permitLost(LeaseLostEvent.Reason reason) {
        permitLost[reason.ordinal()].increment();
    }

    void latchAwait(LockEventListener.Outcome outcome, long nanos) {
        latchAwait[outcome.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    void countedDown() {
        countDowns.increment();
    }

    private static <M extends Meter> M kept(Consumer<Meter> keep, M meter) {
        keep.accept(meter);
        return meter;
    }
}
