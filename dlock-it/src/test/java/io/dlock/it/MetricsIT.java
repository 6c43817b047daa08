package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.metrics.LockMetrics;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LockMetrics} with a {@link SimpleMeterRegistry}: exact counts and tags after known sequences on a real Redis.
 * An acquisition's result reaches the caller and the meters on different threads, so counts are awaited (bounded).
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = MetricsIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class MetricsIT {

    static final int WATCHDOG_MS = 1500;
    /** Owner ids for async acquisitions: far from any thread id of the test JVM. */
    private static final long OTHER_OWNER = 8_000_001;
    private static final Duration SETTLE = Duration.ofSeconds(5);
    private static final String[] OUTCOMES = {"acquired", "timed_out", "interrupted", "failed"};

    private String name;
    private SimpleMeterRegistry registry;
    private final List<LockMetrics> toClose = new ArrayList<>();

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:MetricsIT:" + info.getTestMethod().orElseThrow().getName();
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void tearDown() {
        toClose.forEach(LockMetrics::close);
    }

    private LockMetrics meter(LockClient client) {
        LockMetrics metrics = LockMetrics.of(client);
        toClose.add(metrics);
        metrics.bindTo(registry);
        return metrics;
    }

    // ---- reading the registry ----

    private long acquisitions(String kind, String outcome) {
        return registry.get("dlock.acquire").tags("kind", kind, "outcome", outcome).timer().count();
    }

    private long allAcquisitions(String kind) {
        long sum = 0;
        for (String outcome : OUTCOMES) {
            sum += acquisitions(kind, outcome);
        }
        return sum;
    }

    private long attemptsRecorded(String kind) {
        return registry.get("dlock.acquire.attempts").tags("kind", kind).summary().count();
    }

    private double attemptsTotal(String kind) {
        return registry.get("dlock.acquire.attempts").tags("kind", kind).summary().totalAmount();
    }

    private long holdsRecorded(String kind) {
        return registry.get("dlock.hold").tags("kind", kind).timer().count();
    }

    private double gauge(String meter, String kind) {
        return registry.get(meter).tags("kind", kind).gauge().value();
    }

    private double counter(String meter, String... tags) {
        return registry.get(meter).tags(tags).counter().count();
    }

    private static void eventually(Await.Assertions assertions) {
        Await.untilAsserted(SETTLE, assertions);
    }

    // ---- sequences ----

    @Test
    void uncontendedAcquireAndRelease(LockClient a) {
        meter(a);
        DistributedLock lock = a.getLock(name);

        lock.lock();
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        assertThat(gauge("dlock.holds", "plain")).isEqualTo(1);
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        assertThat(attemptsRecorded("plain")).isEqualTo(1);
        assertThat(attemptsTotal("plain")).isEqualTo(1);
        lock.unlock();

        assertThat(holdsRecorded("plain")).isEqualTo(1);
        assertThat(registry.get("dlock.hold").tags("kind", "plain").timer().totalTime(MILLISECONDS)).isPositive();
        assertThat(gauge("dlock.holds", "plain")).isZero();
        assertThat(allAcquisitions("plain")).isEqualTo(1);
        assertThat(counter("dlock.handoffs", "kind", "plain")).isZero();
        assertThat(registry.get("dlock.lease.lost").counters()).allSatisfy(c -> assertThat(c.count()).isZero());
        assertThat(registry.getMeters()).noneMatch(m -> m.getId().getTag("name") != null);
        Leaks.assertClientIdle(a);
    }

    @Test
    void contendedAcquireAcrossClientsCountsItsAttempts(RedisServer server, LockClient a, LockClient b)
            throws Exception {
        meter(a);
        DistributedLock held = b.getLock(name);
        held.lock();
        CompletableFuture<Void> waiter = a.getLock(name).lockAsync();
        eventually(() -> assertThat(gauge("dlock.waiters", "plain")).isEqualTo(1));
        // the waiter subscribes only after a failed attempt: once it listens, its next attempt is its second at least
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            Await.until(SETTLE, () -> raw.subscribers(RawRedis.lockChannel(name)) >= 1, "the waiter subscribed");
        }
        assertThat(acquisitions("plain", "acquired")).isZero();

        held.unlock();
        waiter.get(10, SECONDS);
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        assertThat(gauge("dlock.holds", "plain")).isEqualTo(1);
        assertThat(attemptsRecorded("plain")).isEqualTo(1);
        assertThat(attemptsTotal("plain")).as("a waiter attempts, fails, and attempts again").isGreaterThanOrEqualTo(2);
        assertThat(registry.get("dlock.acquire.attempts").tags("kind", "plain").summary().max())
                .isGreaterThanOrEqualTo(2);
        assertThat(counter("dlock.handoffs", "kind", "plain")).isZero();

        a.getLock(name).unlockAsync().get(10, SECONDS);
        assertThat(gauge("dlock.holds", "plain")).isZero();
        assertThat(holdsRecorded("plain")).isEqualTo(1);
        Leaks.assertClientIdle(a);
    }

    @Test
    void contendedAcquireInsideOneClientIsHandedOver(LockClient a) throws Exception {
        meter(a);
        DistributedLock lock = a.getLock(name);
        lock.lock();
        CompletableFuture<Void> waiter = lock.as(LockOwner.of(OTHER_OWNER)).lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        Await.until(SETTLE, () -> ((RedisLockClient) a).localWaiters(name) == 1, "a local waiter");
        assertThat(gauge("dlock.waiters", "plain")).isEqualTo(1);

        lock.unlock();
        waiter.get(10, SECONDS);
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(2));
        assertThat(counter("dlock.handoffs", "kind", "plain")).isEqualTo(1);
        assertThat(attemptsRecorded("plain")).isEqualTo(2);
        // 1 for the first owner; the one handed the lock asks Redis at most once (before it queues behind the local
        // holder, when the two race), never after it is queued
        assertThat(attemptsTotal("plain")).as("attempts of the first owner and of the one handed the lock")
                .isBetween(1.0, 2.0);
        assertThat(holdsRecorded("plain")).as("the first owner's hold ended").isEqualTo(1);
        assertThat(gauge("dlock.holds", "plain")).as("the receiver's hold").isEqualTo(1);

        lock.as(LockOwner.of(OTHER_OWNER)).unlockAsync().get(10, SECONDS);
        assertThat(holdsRecorded("plain")).isEqualTo(2);
        assertThat(gauge("dlock.holds", "plain")).isZero();
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        Leaks.assertClientIdle(a);
    }

    @Test
    void tryLockThatGetsNothingTimesOut(LockClient a, LockClient b) throws Exception {
        meter(a);
        DistributedLock held = b.getLock(name);
        held.lock();
        DistributedLock lock = a.getLock(name);

        assertThat(lock.tryLock(100, MILLISECONDS)).isFalse();
        assertThat(lock.tryLock()).isFalse();

        eventually(() -> assertThat(acquisitions("plain", "timed_out")).isEqualTo(2));
        assertThat(allAcquisitions("plain")).isEqualTo(2);
        assertThat(attemptsRecorded("plain")).isEqualTo(2);
        assertThat(registry.get("dlock.acquire").tags("kind", "plain", "outcome", "timed_out").timer()
                .max(MILLISECONDS)).isGreaterThanOrEqualTo(100);
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        assertThat(gauge("dlock.holds", "plain")).isZero();
        held.unlock();
        Leaks.assertClientIdle(a);
    }

    @Test
    void interruptedAndCancelledWaitsCountAsInterrupted(LockClient a, LockClient b) throws Exception {
        meter(a);
        DistributedLock held = b.getLock(name);
        held.lock();
        DistributedLock lock = a.getLock(name);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.lockInterruptibly();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        waiter.start();
        eventually(() -> assertThat(gauge("dlock.waiters", "plain")).isEqualTo(1));
        waiter.interrupt();
        waiter.join(10_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);

        CompletableFuture<Void> cancelled = lock.as(LockOwner.of(OTHER_OWNER)).lockAsync(LEASE_WATCHDOG, MILLISECONDS);
        eventually(() -> assertThat(gauge("dlock.waiters", "plain")).isEqualTo(1));
        cancelled.cancel(false);

        eventually(() -> assertThat(acquisitions("plain", "interrupted")).isEqualTo(2));
        assertThat(allAcquisitions("plain")).isEqualTo(2);
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        held.unlock();
        Leaks.assertClientIdle(a);
    }

    @Test
    void redisDownFailsTheAcquisition(RedisServer server, @ClientSettings(commandTimeoutMillis = 300) LockClient a) {
        meter(a);
        server.stop();
        assertThatThrownBy(() -> a.getLock(name).tryLock(1, SECONDS)).isInstanceOf(LockException.class);

        eventually(() -> assertThat(acquisitions("plain", "failed")).isEqualTo(1));
        assertThat(allAcquisitions("plain")).isEqualTo(1);
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        assertThat(gauge("dlock.holds", "plain")).isZero();
    }

    @Test
    void deletedKeyCountsAsLeaseLostRemoved(RedisServer server, LockClient a) {
        meter(a);
        DistributedLock lock = a.getLock(name);
        lock.lock();
        eventually(() -> assertThat(gauge("dlock.holds", "plain")).isEqualTo(1));
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            raw.sync().del(name);
        }

        Await.untilAsserted(Duration.ofMillis(WATCHDOG_MS * 2L), () ->
                assertThat(counter("dlock.lease.lost", "kind", "plain", "reason", "removed")).isEqualTo(1));
        assertThat(gauge("dlock.holds", "plain")).isZero();
        assertThat(counter("dlock.lease.lost", "kind", "plain", "reason", "expired")).isZero();
        assertThat(counter("dlock.lease.lost", "kind", "plain", "reason", "renewal_failed")).isZero();
        assertThat(holdsRecorded("plain")).as("a lost hold is no released hold").isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        Leaks.assertClientIdle(a);
    }

    @Test
    void renewalsAreCountedAndFailedOnesLeadToLeaseLost(RedisServer server,
                                                          @ClientSettings(commandTimeoutMillis = 300) LockClient a) {
        meter(a);
        DistributedLock lock = a.getLock(name);
        lock.lock();
        Await.untilAsserted(Duration.ofMillis(WATCHDOG_MS * 3L), () ->
                assertThat(counter("dlock.renewals", "kind", "plain", "result", "ok")).isGreaterThanOrEqualTo(2));
        eventually(() -> assertThat(counter("dlock.renewal.calls", "result", "ok"))
                .as("one hold: one renewal per call").isEqualTo(counter("dlock.renewals", "kind", "plain",
                        "result", "ok")));
        assertThat(counter("dlock.renewals", "kind", "plain", "result", "failed")).isZero();

        server.pause();
        try {
            Await.untilAsserted(Duration.ofMillis(WATCHDOG_MS * 3L), () -> assertThat(
                    counter("dlock.lease.lost", "kind", "plain", "reason", "renewal_failed")).isEqualTo(1));
            eventually(() -> assertThat(counter("dlock.renewals", "kind", "plain", "result", "failed"))
                    .isGreaterThanOrEqualTo(1));
            assertThat(counter("dlock.renewal.calls", "result", "failed")).isGreaterThanOrEqualTo(1);
            assertThat(gauge("dlock.holds", "plain")).isZero();
        } finally {
            server.resume();
        }
    }

    @Test
    void everyKindHasItsOwnMeters(LockClient a) throws Exception {
        meter(a);
        DistributedLock plain = a.getLock(name + ":plain");
        DistributedLock fair = a.getFairLock(name + ":fair");
        DistributedReadWriteLock rw = a.getReadWriteLock(name + ":rw");
        DistributedReadWriteLock rw2 = a.getReadWriteLock(name + ":rw2");
        FencedLock fenced = a.getFencedLock(name + ":fenced");

        plain.lock();
        plain.lock(); // a re-entry: one more acquisition, still one hold
        fair.lock();
        rw.readLock().lock();
        rw2.writeLock().lock();
        fenced.lockAndGetToken();
        for (String kind : List.of("fair", "read", "write", "fenced")) {
            eventually(() -> assertThat(acquisitions(kind, "acquired")).as(kind).isEqualTo(1));
            assertThat(gauge("dlock.holds", kind)).as(kind).isEqualTo(1);
        }
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(2));
        assertThat(gauge("dlock.holds", "plain")).isEqualTo(1);

        plain.unlock();
        assertThat(holdsRecorded("plain")).as("holds remain after a partial release").isZero();
        plain.unlock();
        fair.unlock();
        rw.readLock().unlock();
        rw2.writeLock().unlock();
        fenced.unlock();
        for (String kind : List.of("plain", "fair", "read", "write", "fenced")) {
            assertThat(gauge("dlock.holds", kind)).as(kind).isZero();
            assertThat(holdsRecorded(kind)).as(kind).isEqualTo(1);
            assertThat(gauge("dlock.waiters", kind)).as(kind).isZero();
        }
        Leaks.assertClientIdle(a);
    }

    @Test
    void lockNamesAreTagsOnlyForNamesTheFilterAccepts(LockClient a) {
        String tagged = name + ":tagged";
        LockMetrics metrics = LockMetrics.builder(a).lockNameTags(n -> n.endsWith(":tagged")).build();
        toClose.add(metrics);
        metrics.bindTo(registry);

        a.getLock(tagged).lock();
        a.getLock(tagged).unlock();
        a.getLock(name + ":other").lock();
        a.getLock(name + ":other").unlock();

        eventually(() -> assertThat(registry.get("dlock.acquire")
                .tags("kind", "plain", "outcome", "acquired", "name", tagged).timer().count()).isEqualTo(1));
        assertThat(registry.get("dlock.acquire").tags("kind", "plain", "outcome", "acquired", "name", "*").timer()
                .count()).isEqualTo(1);
        assertThat(registry.get("dlock.hold").tags("kind", "plain", "name", tagged).timer().count()).isEqualTo(1);
        assertThat(registry.get("dlock.hold").tags("kind", "plain", "name", "*").timer().count()).isEqualTo(1);
        assertThat(registry.getMeters()).noneMatch(m -> (name + ":other").equals(m.getId().getTag("name")));
        assertThat(registry.find("dlock.holds").gauges())
                .allSatisfy(g -> assertThat(g.getId().getTag("name")).isNull());
        // every meter of one name has the same tag keys (as Prometheus requires)
        assertThat(registry.find("dlock.acquire").meters()).allSatisfy(m ->
                assertThat(m.getId().getTag("name")).isNotNull());
    }

    @Test
    void anAcquisitionIsAnObservationCarryingTheLockName(LockClient a) {
        TestObservationRegistry observations = TestObservationRegistry.create();
        LockMetrics metrics = LockMetrics.builder(a).observationRegistry(observations).build();
        toClose.add(metrics);
        metrics.bindTo(registry);

        a.getLock(name).lock();
        a.getLock(name).unlock();

        eventually(() -> TestObservationRegistryAssert.assertThat(observations).hasSingleObservationThat()
                .hasNameEqualTo("dlock.acquire")
                .hasHighCardinalityKeyValue("name", name)
                .hasLowCardinalityKeyValue("kind", "plain")
                .hasLowCardinalityKeyValue("outcome", "acquired")
                .hasBeenStarted()
                .hasBeenStopped());
        assertThat(registry.getMeters()).as("no name tag on meters without the opt-in")
                .noneMatch(m -> m.getId().getTag("name") != null);
    }

    @Test
    void severalRegistriesThenCloseRemovesEveryMeter(LockClient a) {
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        LockMetrics metrics = meter(a);
        metrics.bindTo(second);
        // a registry takes one LockMetrics per prefix: a second one, or the same one again, would count twice
        assertThatThrownBy(() -> metrics.bindTo(registry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'dlock.*'");
        LockMetrics other = LockMetrics.of(a);
        toClose.add(other);
        assertThatThrownBy(() -> other.bindTo(second)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("prefix");

        a.getLock(name).lock();
        a.getLock(name).unlock();
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        assertThat(second.get("dlock.acquire").tags("kind", "plain", "outcome", "acquired").timer().count())
                .isEqualTo(1);

        metrics.close();
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(second.getMeters()).isEmpty();
        a.getLock(name).lock();
        a.getLock(name).unlock();
        metrics.bindTo(registry);
        assertThat(registry.getMeters()).as("a closed LockMetrics binds nothing").isEmpty();

        LockMetrics next = meter(a);
        a.getLock(name).lock();
        a.getLock(name).unlock();
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        next.close();
        Leaks.assertClientIdle(a);
    }

    @Test
    void severalLockMetricsOfOneClientRecordUnderTheirOwnPrefixes(LockClient a) {
        meter(a);
        LockMetrics tagged = LockMetrics.builder(a).prefix("locks").lockNameTags(n -> true).build();
        toClose.add(tagged);
        tagged.bindTo(registry);

        a.getLock(name).lock();
        a.getLock(name).unlock();
        eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        eventually(() -> assertThat(registry.get("locks.acquire").tags("kind", "plain", "outcome", "acquired",
                "name", name).timer().count()).isEqualTo(1));

        tagged.close();
        assertThat(registry.find("locks.acquire").meters()).isEmpty();
        a.getLock(name).lock();
        a.getLock(name).unlock();
        eventually(() -> assertThat(acquisitions("plain", "acquired")).as("the other one goes on").isEqualTo(2));
        assertThat(holdsRecorded("plain")).isEqualTo(2);
        Leaks.assertClientIdle(a);
    }

    @Test
    void twoClientsMeteredIntoOneRegistryNeedTwoPrefixes(LockClient a, LockClient b) {
        meter(a);
        LockMetrics same = LockMetrics.of(b);
        toClose.add(same);
        assertThatThrownBy(() -> same.bindTo(registry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'dlock.*'");
        LockMetrics own = LockMetrics.builder(b).prefix("b").build();
        toClose.add(own);
        own.bindTo(registry);

        b.getLock(name).lock();
        b.getLock(name).unlock();
        eventually(() -> assertThat(registry.get("b.acquire").tags("kind", "plain", "outcome", "acquired").timer()
                .count()).isEqualTo(1));
        assertThat(allAcquisitions("plain")).as("nothing of b under a's prefix").isZero();
    }

    @Test
    void metricsOfAClosedClientStayUntilClosedAndRecordNothingMore(RedisServer server) {
        LockClient client = LockClient.connect(server.uri());
        LockMetrics metrics;
        try {
            metrics = meter(client);
            client.getLock(name).lock();
            client.getLock(name).unlock();
            eventually(() -> assertThat(acquisitions("plain", "acquired")).isEqualTo(1));
        } finally {
            client.close();
        }
        assertThat(gauge("dlock.holds", "plain")).isZero();
        assertThat(gauge("dlock.waiters", "plain")).isZero();
        assertThat(acquisitions("plain", "acquired")).isEqualTo(1);
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }
}
