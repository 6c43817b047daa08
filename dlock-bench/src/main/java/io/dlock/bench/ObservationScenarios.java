package io.dlock.bench;

import io.dlock.DistributedSemaphore;
import io.dlock.metrics.LockMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What observing permit acquisitions costs (issue 30 item 3): S9's loop (semaphore, {@value FamilyScenarios#SEM_THREADS}
 * threads on {@value FamilyScenarios#SEM_PERMITS} permits, {@code acquire()}+{@code release()}) on the dlock client
 * with {@code LockMetrics} bound, observations off (S9M) and on (S9O), in the same rounds; compare the two rows'
 * ops/s and client cpu us/op. "On" is an {@link ObservationRegistry} with one handler that only counts the
 * observations it sees stop: the cost of dlock's observations, not of a tracer. dlock only (Redisson rows: n/a).
 */
final class ObservationScenarios {
    private ObservationScenarios() {
    }

    static List<Scenario> all() {
        return List.of(
                Scenario.of("S9M", "S9 with LockMetrics bound, observations off (the S9O baseline)",
                        (library, context, duration) -> semaphore(library, duration, false)),
                Scenario.of("S9O", "S9 with LockMetrics bound and an ObservationRegistry: each acquisition is a "
                        + "dlock.permit.acquire observation", (library, context, duration) ->
                        semaphore(library, duration, true)));
    }

    private static Scenario.Outcome semaphore(Library library, Duration duration, boolean observe) throws Exception {
        if (!(library instanceof Library.Dlock dlock) || !dlock.name().equals("dlock")) {
            throw new UnsupportedOperationException("dlock only: observations on vs off");
        }
        Counting counting = new Counting();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(counting);
        LockMetrics.Builder builder = LockMetrics.builder(dlock.client());
        if (observe) {
            builder.observationRegistry(observations);
        }
        String name = observe ? "s9o" : "s9m";
        try (LockMetrics metrics = builder.build()) {
            metrics.bindTo(new SimpleMeterRegistry());
            DistributedSemaphore semaphore = dlock.client().getSemaphore(name);
            if (!semaphore.trySetPermits(FamilyScenarios.SEM_PERMITS)) {
                return new Scenario.Outcome(new Load.Result(0, 0, Measurement.newHistogram(), null, null),
                        "trySetPermits refused on a flushed server");
            }
            Occupancy occupancy = new Occupancy(FamilyScenarios.SEM_PERMITS);
            Load.Result load = Load.run(FamilyScenarios.SEM_THREADS, duration, t -> {
                semaphore.acquire();
                try {
                    occupancy.pass();
                } finally {
                    semaphore.release();
                }
                return true;
            });
            String check = load.failure() != null ? load.failure().toString() : occupancy.verdict();
            // every acquisition observed when on (the last ones may stop just after the run), none when off
            long stopped = counting.stopped.sum();
            if (check.equals("ok") && (observe ? stopped < load.ops() - FamilyScenarios.SEM_THREADS : stopped != 0)) {
                check = "OBSERVED " + stopped + " OF " + load.ops();
            }
            return new Scenario.Outcome(load, check);
        }
    }

    /** Counts the observations that stop; nothing else. */
    private static final class Counting implements ObservationHandler<Observation.Context> {
        final LongAdder stopped = new LongAdder();

        @Override
        public void onStop(Observation.Context context) {
            stopped.increment();
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }
}
