package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.Permit;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.metrics.LockMetrics;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.ObservationContextAssert;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Permit acquisitions (both semaphores) and latch awaits as Micrometer Observations, beside the lock's
 * {@code dlock.acquire} ({@code MetricsIT}): their names, their low-cardinality {@code kind} and {@code outcome}, the
 * object's name as the high-cardinality key only, their duration (a wait shows), their parent (the caller's current
 * observation), on a real Redis with {@link TestObservationRegistry}. Observations stop on the thread that completes
 * the call, at about the time the caller learns its outcome, so their end is awaited (bounded).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class ObservationIT {
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** How long a waiter is kept waiting once it is seen waiting. */
    private static final long WAIT_MS = 300;
    /** The wait of the timed calls that are to time out. */
    private static final long SHORT_WAIT_MS = 300;

    private String name;
    private RawRedis raw;
    private TestObservationRegistry observations;
    private final Timing timing = new Timing();
    private LockMetrics metrics;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:ObservationIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        observations = TestObservationRegistry.create();
        observations.observationConfig().observationHandler(timing);
    }

    @AfterEach
    void tearDown() {
        if (metrics != null) {
            metrics.close();
        }
        raw.close();
    }

    private MeterRegistry observe(LockClient client) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics = LockMetrics.builder(client).observationRegistry(observations).build();
        metrics.bindTo(registry);
        return registry;
    }

    private static void eventually(Await.Assertions assertions) {
        Await.untilAsserted(SETTLE, assertions);
    }

    /** The one observation of {@code observationName} with {@code outcome}, awaited until it has stopped. */
    private Observation.Context stopped(String observationName, String outcome) {
        AtomicReference<Observation.Context> found = new AtomicReference<>();
        eventually(() -> TestObservationRegistryAssert.assertThat(observations)
                .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts)
                        .filteredOn(c -> c.getName().equals(observationName)
                                && c.getLowCardinalityKeyValue("outcome") != null
                                && c.getLowCardinalityKeyValue("outcome").getValue().equals(outcome))
                        .singleElement().satisfies(c -> {
                            assertThat(timing.stopped(c)).as("stopped").isTrue();
                            found.set(c);
                        })));
        return found.get();
    }

    private void assertKeys(Observation.Context context, String kind, String outcome) {
        ObservationContextAssert.assertThat(context)
                .hasLowCardinalityKeyValue("kind", kind)
                .hasLowCardinalityKeyValue("outcome", outcome)
                .doesNotHaveLowCardinalityKeyValueWithKey("name")
                .hasHighCardinalityKeyValue("name", name);
    }

    @Test
    void aSemaphoreAcquisitionThatWaitsIsAnObservationAsLongAsItsWaitUnderTheCallersObservation(LockClient client)
            throws Exception {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        semaphore.acquire();
        MeterRegistry registry = observe(client); // the waiter's acquisition is the one observed

        Observation request = Observation.createNotStarted("request", observations);
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> request.observe(() -> {
            try {
                semaphore.acquire();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }));
        SemaphoreProbe.awaitWaiters(client, 1);
        long seenWaiting = System.nanoTime();
        // keeps the waiter waiting for a known time (not an assertion: the wait is what is measured)
        Thread.sleep(WAIT_MS);
        long released = System.nanoTime();
        semaphore.release();
        waiter.get(10, SECONDS);

        Observation.Context acquired = stopped("dlock.permit.acquire", "acquired");
        assertKeys(acquired, "semaphore", "acquired");
        ObservationContextAssert.assertThat(acquired).hasContextualNameEqualTo("dlock acquire semaphore");
        assertThat(acquired.getParentObservation()).as("the caller's observation is its parent")
                .isNotNull().extracting(p -> p.getContextView().getName()).isEqualTo("request");
        assertThat(acquired.getError()).isNull();
        long observedNanos = timing.durationNanos(acquired);
        assertThat(NANOSECONDS.toMillis(observedNanos)).as("the observation spans the permit wait")
                .isGreaterThanOrEqualTo(NANOSECONDS.toMillis(released - seenWaiting));
        // the meter and the observation time the same wait
        eventually(() -> assertThat(registry.get("dlock.permit.acquire").tags("semaphore", "plain", "outcome",
                "acquired").timer().max(MILLISECONDS)).isGreaterThanOrEqualTo(WAIT_MS));
        semaphore.release();
        semaphore.release();
    }

    @Test
    void leasedSemaphoreAcquisitionsAreObservedAcquiredTimedOutAndInterrupted(LockClient client) throws Exception {
        observe(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        try (Permit held = semaphore.acquire()) {
            assertKeys(stopped("dlock.permit.acquire", "acquired"), "leased_semaphore", "acquired");

            assertThat(semaphore.tryAcquire(Duration.ofMillis(SHORT_WAIT_MS), null)).isEmpty();
            Observation.Context timedOut = stopped("dlock.permit.acquire", "timed_out");
            assertKeys(timedOut, "leased_semaphore", "timed_out");
            assertThat(NANOSECONDS.toMillis(timing.durationNanos(timedOut))).isGreaterThanOrEqualTo(SHORT_WAIT_MS - 10);

            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    semaphore.acquire();
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            waiter.start();
            SemaphoreProbe.awaitWaiters(client, 1);
            waiter.interrupt();
            waiter.join(5000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            Observation.Context interrupted = stopped("dlock.permit.acquire", "interrupted");
            assertKeys(interrupted, "leased_semaphore", "interrupted");
            assertThat(interrupted.getError()).isNull();
        }
        TestObservationRegistryAssert.assertThat(observations).as("one observation per acquisition")
                .hasNumberOfObservationsWithNameEqualTo("dlock.permit.acquire", 3);
    }

    @Test
    void aFailedPermitAcquisitionCarriesItsError(LockClient client) {
        observe(client);
        raw.sync().hset(name, "cart", "3 apples");
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThatThrownBy(semaphore::tryAcquire).isInstanceOf(LockException.class);

        Observation.Context failed = stopped("dlock.permit.acquire", "failed");
        assertKeys(failed, "semaphore", "failed");
        assertThat(failed.getError()).isInstanceOf(LockException.class);
    }

    @Test
    void latchAwaitsAreObservedOpenedTimedOutInterruptedAndFailed(LockClient client) throws Exception {
        observe(client);
        DistributedCountDownLatch latch = client.getCountDownLatch(name);
        assertThat(latch.trySetCount(1)).isTrue();
        CompletableFuture<Void> opened = latch.awaitAsync();
        latch.countDown();
        opened.get(10, TimeUnit.SECONDS);
        Observation.Context open = stopped("dlock.latch.await", "opened");
        assertKeys(open, "latch", "opened");
        ObservationContextAssert.assertThat(open).hasContextualNameEqualTo("dlock await latch").doesNotHaveError();

        assertThat(latch.trySetCount(1)).isTrue();
        // a timed wait ends by its deadline plus a short grace: the first check must answer by then, even on a busy
        // machine
        assertThat(latch.await(SHORT_WAIT_MS, MILLISECONDS)).isFalse();
        Observation.Context timedOut = stopped("dlock.latch.await", "timed_out");
        assertKeys(timedOut, "latch", "timed_out");
        assertThat(NANOSECONDS.toMillis(timing.durationNanos(timedOut))).isGreaterThanOrEqualTo(SHORT_WAIT_MS - 10);

        CompletableFuture<Void> cancelled = latch.awaitAsync();
        cancelled.cancel(true);
        assertKeys(stopped("dlock.latch.await", "interrupted"), "latch", "interrupted");

        raw.sync().del(name);
        raw.sync().hset(name, "cart", "3 apples");
        assertThatThrownBy(latch::await).isInstanceOf(LockException.class);
        Observation.Context failed = stopped("dlock.latch.await", "failed");
        assertKeys(failed, "latch", "failed");
        assertThat(failed.getError()).isInstanceOf(LockException.class);
    }

    /**
     * The object's name reaches traces (a high-cardinality key) and never meters: a handler that makes timers of the
     * observations (as Spring Boot's default one) gives them {@code kind}, {@code outcome} and {@code error} only,
     * even when {@link LockMetrics.Builder#lockNameTags} accepts every name.
     */
    @Test
    void theNameIsAHighCardinalityKeyOnlyAndNeverATagOfTheObservationsTimers(LockClient client) throws Exception {
        SimpleMeterRegistry fromObservations = new SimpleMeterRegistry();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(fromObservations));
        metrics = LockMetrics.builder(client).observationRegistry(observations).lockNameTags(n -> true)
                .build();
        metrics.bindTo(new SimpleMeterRegistry());

        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire();
        Optional<Permit> none = client.getLeasedSemaphore(name + ":leased").tryAcquire();
        assertThat(none).isEmpty();
        DistributedCountDownLatch latch = client.getCountDownLatch(name + ":latch");
        assertThat(latch.await(5, SECONDS)).as("no key: open").isTrue();
        semaphore.release();

        eventually(() -> assertThat(fromObservations.find("dlock.latch.await").timers()).hasSize(1));
        eventually(() -> assertThat(fromObservations.find("dlock.permit.acquire").timers()).hasSize(2));
        assertThat(fromObservations.getMeters()).isNotEmpty().allSatisfy(m -> {
            assertThat(m.getId().getTag("name")).as(m.getId().toString()).isNull();
            if (m.getId().getName().startsWith("dlock.")) {
                assertThat(m.getId().getTag("kind")).as(m.getId().toString()).isNotNull();
            }
        });
        TestObservationRegistryAssert.assertThat(observations).hasNumberOfObservationsEqualTo(3)
                .hasHandledContextsThatSatisfy(contexts -> assertThat(contexts).allSatisfy(c ->
                        assertThat(c.getHighCardinalityKeyValue("name").getValue()).startsWith(name)));
    }

    @Test
    void withoutAnObservationRegistryNothingIsObservedAndTheMetersStillCount(LockClient client) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics = LockMetrics.of(client);
        metrics.bindTo(registry);
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire();
        assertThat(client.getCountDownLatch(name + ":latch").await(5, SECONDS)).as("no key: open").isTrue();
        semaphore.release();
        eventually(() -> assertThat(registry.get("dlock.permit.acquire").tags("semaphore", "plain", "outcome",
                "acquired").timer().count()).isEqualTo(1));
        eventually(() -> assertThat(registry.get("dlock.latch.await").tags("outcome", "opened").timer().count())
                .isEqualTo(1));
        TestObservationRegistryAssert.assertThat(observations).doesNotHaveAnyObservation();
    }

    /** When each observation started and stopped, by {@code System.nanoTime()}. */
    private static final class Timing implements ObservationHandler<Observation.Context> {
        private final Map<Observation.Context, Long> starts = new ConcurrentHashMap<>();
        private final Map<Observation.Context, Long> stops = new ConcurrentHashMap<>();

        @Override
        public void onStart(Observation.Context context) {
            starts.put(context, System.nanoTime());
        }

        @Override
        public void onStop(Observation.Context context) {
            stops.put(context, System.nanoTime());
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        boolean stopped(Observation.Context context) {
            return stops.containsKey(context);
        }

        long durationNanos(Observation.Context context) {
            assertThat(starts).as("started").containsKey(context);
            assertThat(stops).as("stopped").containsKey(context);
            return stops.get(context) - starts.get(context);
        }
    }
}
