package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.metrics.LockMetrics;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockMetrics}' meters of semaphores and count-down latches with a {@link SimpleMeterRegistry}: exact counts
 * after known sequences on a real Redis. Outcomes reach the meters on the thread that completes them, so counts are
 * awaited (bounded).
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class SynchronizerMetricsIT {
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private String name;
    private SimpleMeterRegistry registry;
    private LockMetrics metrics;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:SynchronizerMetricsIT:" + info.getTestMethod().orElseThrow().getName();
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void tearDown() {
        if (metrics != null) {
            metrics.close();
        }
    }

    private void meter(LockClient client) {
        metrics = LockMetrics.of(client);
        metrics.bindTo(registry);
    }

    private long permitAcquisitions(String semaphore, String outcome) {
        return registry.get("dlock.permit.acquire").tags("semaphore", semaphore, "outcome", outcome).timer().count();
    }

    private double permitsHeld() {
        return registry.get("dlock.permits.held").gauge().value();
    }

    private static void eventually(Await.Assertions assertions) {
        Await.untilAsserted(SETTLE, assertions);
    }

    @Test
    void leasedPermitAcquisitionsByOutcomeAndThePermitsHeld(LockClient client) throws Exception {
        meter(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();

        Permit first = semaphore.acquire();
        Optional<Permit> second = semaphore.tryAcquire();
        assertThat(second).isPresent();
        eventually(() -> assertThat(permitAcquisitions("leased", "acquired")).isEqualTo(2));
        assertThat(permitsHeld()).isEqualTo(2);

        assertThat(semaphore.tryAcquire()).isEmpty();
        assertThat(semaphore.tryAcquire(Duration.ofMillis(200), null)).isEmpty();
        eventually(() -> assertThat(permitAcquisitions("leased", "timed_out")).isEqualTo(2));
        assertThat(registry.get("dlock.permit.acquire").tags("semaphore", "leased", "outcome", "timed_out").timer()
                .max(MILLISECONDS)).as("the longest wait").isGreaterThanOrEqualTo(190);

        assertThat(first.release()).isTrue();
        assertThat(permitsHeld()).isEqualTo(1);
        second.get().close();
        assertThat(permitsHeld()).isZero();
        assertThat(permitAcquisitions("leased", "failed")).isZero();
        assertThat(permitAcquisitions("plain", "acquired")).isZero();
    }

    @Test
    void plainSemaphoreAcquisitionsAreTaggedPlainAndHoldNothing(LockClient client) throws Exception {
        meter(client);
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire();
        assertThat(semaphore.tryAcquire()).isFalse();
        eventually(() -> assertThat(permitAcquisitions("plain", "acquired")).isEqualTo(1));
        eventually(() -> assertThat(permitAcquisitions("plain", "timed_out")).isEqualTo(1));
        assertThat(permitsHeld()).as("plain permits have no holder").isZero();
        semaphore.release();
    }

    @Test
    void anInterruptedWaitCountsAsInterrupted(LockClient client) throws Exception {
        meter(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        try (Permit held = semaphore.acquire()) {
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread waiter = new Thread(() -> {
                try {
                    semaphore.acquire();
                } catch (Throwable e) {
                    outcome.set(e);
                }
            });
            waiter.start();
            // interrupt the wait itself: the acquisition waits in the client and its thread is parked
            SemaphoreProbe.awaitWaiters(client, 1);
            Await.until(Leaks.SETTLE, () -> waiter.getState() == Thread.State.WAITING
                    || waiter.getState() == Thread.State.TIMED_WAITING, () -> "waiter parked: " + waiter.getState());
            waiter.interrupt();
            waiter.join(5000);
            assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
            eventually(() -> assertThat(permitAcquisitions("leased", "interrupted")).isEqualTo(1));
            assertThat(permitsHeld()).isEqualTo(1);
        }
        assertThat(permitsHeld()).isZero();
    }

    @Test
    void aPermitWhoseLeaseRunsOutIsCountedLost(@ClientSettings(watchdogTimeoutMillis = 1500) LockClient client)
            throws Exception {
        meter(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire(Duration.ofMillis(300));
        assertThat(permitsHeld()).isEqualTo(1);
        eventually(() -> assertThat(registry.get("dlock.permit.lost").tags("reason", "expired").counter().count())
                .isEqualTo(1));
        assertThat(permitsHeld()).isZero();
        assertThat(permit.release()).as("the lease had ended").isFalse();
        assertThat(permitsHeld()).as("a release after the loss counts nothing more").isZero();
    }

    @Test
    void permitsTakenBeforeTheMetricsDoNotMakeTheGaugeNegative(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(2);
        Permit before = semaphore.acquire();
        meter(client);
        Permit after = semaphore.acquire();
        before.release();
        assertThat(permitsHeld()).isEqualTo(1);
        after.release();
        assertThat(permitsHeld()).isZero();
    }

    @Test
    void latchAwaitsByOutcomeAndCountDowns(LockClient client) throws Exception {
        meter(client);
        DistributedCountDownLatch latch = client.getCountDownLatch(name);
        assertThat(latch.trySetCount(2)).isTrue();
        assertThat(latch.await(100, MILLISECONDS)).isFalse();
        eventually(() -> assertThat(registry.get("dlock.latch.await").tags("outcome", "timed_out").timer().count())
                .isEqualTo(1));

        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Void> opened = CompletableFuture.runAsync(() -> {
            waiting.countDown();
            try {
                latch.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiting.await(5, SECONDS)).isTrue();
        latch.countDown();
        latch.countDown();
        opened.get(10, TimeUnit.SECONDS);
        eventually(() -> assertThat(registry.get("dlock.latch.await").tags("outcome", "opened").timer().count())
                .isEqualTo(1));
        assertThat(registry.get("dlock.latch.countdowns").counter().count()).isEqualTo(2);
    }

    @Test
    void closingTheMetricsRemovesTheNewMeters(LockClient client) {
        meter(client);
        assertThat(registry.find("dlock.permits.held").gauge()).isNotNull();
        metrics.close();
        metrics = null;
        assertThat(registry.getMeters()).isEmpty();
    }
}
