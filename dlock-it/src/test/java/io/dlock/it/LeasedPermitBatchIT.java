package io.dlock.it;

import io.dlock.LeaseLostEvent;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.PermitCounter;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The leased semaphore's calls for Redisson users beyond one permit at a time (issue 27): several permits at once (all
 * or none, one script call), {@code tryRelease} by id, releases of a list of ids (all or none),
 * {@link Permit#extendLease}, the rule of a second {@link Permit#release()}, and {@link PermitCounter} as the common
 * parent of both semaphores.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class LeasedPermitBatchIT {

    private static final long WATCHDOG_MS = 900;
    private static final String UNKNOWN_ID = "0123456789abcdef0123456789abcdef";

    private String name;
    private String table;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LeasedPermitBatchIT:" + info.getTestMethod().orElseThrow().getName();
        table = "{" + name + "}:timeout";
        raw = RawRedis.connect(server.uri());
        workers = new Workers("batch-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    private static BlockingQueue<LeaseLostEvent> losses(LockClient client) {
        BlockingQueue<LeaseLostEvent> events = new LinkedBlockingQueue<>();
        client.addLeaseLostListener(events::add);
        return events;
    }

    private static List<String> ids(List<Permit> permits) {
        return permits.stream().map(Permit::id).toList();
    }

    @Test
    void severalPermitsAreTakenAllOrNoneInOneScriptCallAndRenewedEach(
            @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(3);
        semaphore.tryAcquire().orElseThrow().close(); // the scripts are loaded
        assertThat(semaphore.tryAcquire(4)).as("more than there are: none").isEmpty();
        assertThat(semaphore.availablePermits()).isEqualTo(3);

        long before = raw.scriptCalls();
        List<Permit> two = semaphore.acquire(2);
        assertThat(raw.scriptCalls() - before).as("one script call for both").isEqualTo(1);
        assertThat(two).hasSize(2);
        assertThat(two.get(0).id()).isNotEqualTo(two.get(1).id());
        assertThat(two).allSatisfy(p -> {
            assertThat(p.isWatchdogRenewed()).isTrue();
            assertThat(p.semaphoreName()).isEqualTo(name);
            assertThat(p.id()).matches("[0-9a-f]{32}");
        });
        assertThat(raw.sync().zcard(table)).isEqualTo(2);
        assertThat(semaphore.tryAcquire(2)).as("one left: none taken").isEmpty();
        assertThat(semaphore.availablePermits()).as("nothing taken by the refused attempt").isEqualTo(1);

        // the watchdog renews each of them past their first lease
        Thread.sleep(WATCHDOG_MS * 2);
        assertThat(two).allSatisfy(p -> assertThat(p.leaseValidFor()).isPositive());
        assertThat(semaphore.acquiredPermits()).isEqualTo(2);

        // a waiter for two never holds one while the other is out
        CompletableFuture<List<Permit>> waiter = semaphore.acquireAsync(2);
        SemaphoreProbe.awaitWaiters(client, 1);
        Await.during(Duration.ofMillis(300), () -> semaphore.availablePermits() == 1 && !waiter.isDone(),
                "the waiter for two takes nothing while one is free");
        assertThat(two.get(0).release()).isTrue();
        List<Permit> next = waiter.get(5, SECONDS);
        assertThat(next).hasSize(2);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(two.get(1).release()).isTrue();
        next.forEach(Permit::close);
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void severalPermitsWithALeaseExpireTogetherAndAreReportedEach(
            @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client) throws Exception {
        BlockingQueue<LeaseLostEvent> lost = losses(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(3);
        List<Permit> permits = semaphore.acquire(3, Duration.ofMillis(300));
        assertThat(permits).hasSize(3).noneMatch(Permit::isWatchdogRenewed);
        List<Double> scores = raw.sync().zrangeWithScores(table, 0, -1).stream().map(s -> s.getScore()).toList();
        assertThat(scores).as("one expiry for all").hasSize(3).containsOnly(scores.get(0));
        for (int i = 0; i < 3; i++) {
            LeaseLostEvent event = lost.poll(5, SECONDS);
            assertThat(event).as("permit %d reported lost", i).isNotNull();
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
        }
        // the client reports a loss a safety margin before Redis's clock ends the lease: Redis reclaims just after
        Await.until(Duration.ofSeconds(5), () -> semaphore.availablePermits() == 3,
                () -> "all came back: " + semaphore.availablePermits() + " available");
        assertThat(semaphore.tryAcquire(3, Duration.ZERO, Duration.ofSeconds(10))).hasSize(3)
                .allSatisfy(Permit::close);
        Permit one = semaphore.acquire();
        assertThat(semaphore.tryAcquire(3, Duration.ofMillis(100), null)).as("timed out: none").isEmpty();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        one.close();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void anAbandonedWaitForSeveralHoldsNothing(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        CompletableFuture<List<Permit>> cancelled = semaphore.acquireAsync(2);
        SemaphoreProbe.awaitWaiters(client, 1);
        cancelled.cancel(true);
        SemaphoreProbe.awaitWaiters(client, 0);

        Future<List<Permit>> interrupted = workers.submit(() -> semaphore.acquire(2, Duration.ofSeconds(10)));
        SemaphoreProbe.awaitWaiters(client, 1);
        interrupted.cancel(true);
        SemaphoreProbe.awaitWaiters(client, 0);

        semaphore.addPermits(1);
        Await.during(Duration.ofMillis(300), () -> semaphore.acquiredPermits() == 0, "nobody holds anything");
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void tryReleaseAnswersFalseForAnIdNotHeld(@ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client)
            throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(2);
        assertThat(semaphore.tryRelease(UNKNOWN_ID)).as("never acquired").isFalse();
        assertThat(semaphore.tryReleaseAsync(UNKNOWN_ID).get(5, SECONDS)).isFalse();
        assertThatThrownBy(() -> semaphore.tryRelease("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("not a permit id");
        assertThat(semaphore.availablePermits()).as("nothing changed").isEqualTo(2);

        Permit permit = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(semaphore.tryRelease(permit.id().toUpperCase())).as("held: given back").isTrue();
        assertThat(semaphore.tryRelease(permit.id())).as("released already").isFalse();
        assertThat(semaphore.availablePermits()).as("given back once").isEqualTo(2);

        // a lease that ended, not reclaimed yet: false (it was not held), and given back (as Redisson does)
        Permit expired = semaphore.acquire(Duration.ofMillis(100));
        Await.until(Duration.ofSeconds(5), () -> client.inspectSemaphore(name).expiredPermits() == 1,
                "the lease ended");
        assertThat(semaphore.tryRelease(expired.id())).isFalse();
        assertThat(client.inspectSemaphore(name).expiredPermits()).as("out of the table").isZero();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aListOfIdsIsReleasedAllOrNone(@ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client)
            throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(5);
        List<Permit> permits = semaphore.acquire(4, Duration.ofSeconds(30));
        List<String> ids = ids(permits);

        semaphore.release(ids.subList(0, 2));
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        assertThat(semaphore.acquiredPermits()).isEqualTo(2);

        List<String> withUnknown = List.of(ids.get(2), UNKNOWN_ID);
        assertThatThrownBy(() -> semaphore.release(withUnknown)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("none of the 2 permits was released")
                .hasMessageContaining("no permit with id " + UNKNOWN_ID).hasMessageNotContaining(ids.get(2));
        assertThat(semaphore.acquiredPermits()).as("the held one is kept").isEqualTo(2);
        assertThat(permits.get(2).leaseValidFor()).as("and its handle holds it again").isPositive();
        assertThat(semaphore.tryRelease(withUnknown)).isFalse();
        assertThat(semaphore.tryRelease(List.of(ids.get(0), ids.get(2)))).as("one released already").isFalse();
        assertThat(semaphore.acquiredPermits()).isEqualTo(2);
        assertThatThrownBy(() -> semaphore.release(List.of(ids.get(2), ids.get(2).toUpperCase())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("appears twice");
        assertThatThrownBy(() -> semaphore.release(List.of(ids.get(2), "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a permit id");
        assertThatThrownBy(() -> semaphore.release((List<String>) null)).isInstanceOf(NullPointerException.class);
        List<String> tooMany = new ArrayList<>(Collections.nCopies(LeasedSemaphore.MAX_PERMITS_AT_ONCE + 1, UNKNOWN_ID));
        assertThatThrownBy(() -> semaphore.tryRelease(tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + LeasedSemaphore.MAX_PERMITS_AT_ONCE);
        semaphore.release(List.of());
        assertThat(semaphore.tryRelease(List.of())).isTrue();

        // one whose lease ended: all or none refuses the list, and keeps it for the next reclaim
        Permit shortLived = semaphore.acquire(Duration.ofMillis(100));
        Await.until(Duration.ofSeconds(5), () -> client.inspectSemaphore(name).expiredPermits() == 1,
                "the lease ended");
        assertThatThrownBy(() -> semaphore.release(List.of(ids.get(2), shortLived.id())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the lease has ended of " + shortLived.id());
        assertThat(client.inspectSemaphore(name).expiredPermits()).as("nothing changed").isEqualTo(1);
        assertThat(client.inspectSemaphore(name).permits()).hasSize(2);

        assertThat(semaphore.tryReleaseAsync(List.of(ids.get(3), ids.get(2))).get(5, SECONDS)).isTrue();
        assertThat(semaphore.availablePermits()).as("4 released, the expired one reclaimed").isEqualTo(5);
        assertThatThrownBy(() -> permits.get(0).release()).as("released by id through this client: ended")
                .isInstanceOf(IllegalStateException.class);
        assertThat(permits).allSatisfy(p -> assertThat(p.leaseValidFor()).isZero());
        permits.forEach(Permit::close);
        assertThat(semaphore.availablePermits()).isEqualTo(5);
        semaphore.releaseAsync(List.<String>of()).get(5, SECONDS);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void extendLeaseSetsAFixedLeaseAndRefusesAWatchdogPermit(
            @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client, LockClient otherClient)
            throws Exception {
        BlockingQueue<LeaseLostEvent> lost = losses(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(3);
        Permit permit = semaphore.acquire(Duration.ofMillis(600));
        assertThat(permit.extendLease(Duration.ofSeconds(20))).isTrue();
        assertThat(permit.leaseValidFor()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        double score = raw.sync().zrangeWithScores(table, 0, -1).get(0).getScore(); // the only permit out
        long serverNowMs = raw.sync().time().stream().findFirst().map(s -> Long.parseLong(s) * 1000).orElseThrow();
        assertThat((long) score - serverNowMs).as("by the server's clock").isBetween(15_000L, 21_000L);
        Await.during(Duration.ofMillis(900), () -> lost.isEmpty() && permit.leaseValidFor().toMillis() > 10_000,
                "held past its first lease");
        assertThat(semaphore.acquiredPermits()).isEqualTo(1);

        // shorter: the new lease replaces the old one
        assertThat(permit.extendLeaseAsync(Duration.ofMillis(200)).get(5, SECONDS)).isTrue();
        assertThat(permit.leaseValidFor()).isLessThanOrEqualTo(Duration.ofMillis(200));
        LeaseLostEvent event = lost.poll(5, SECONDS);
        assertThat(event).isNotNull();
        assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
        assertThat(permit.extendLease(Duration.ofSeconds(5))).as("an ended lease is never brought back").isFalse();
        // reported when its known validity ended (lease less 1% + 2 ms from the send): Redis lets it go within ms
        Await.until(Duration.ofSeconds(1), () -> semaphore.availablePermits() == 3, "the permit back in the count");
        assertThat(permit.release()).isFalse();
        assertThatThrownBy(() -> permit.extendLease(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name).hasMessageContaining("released");

        // released by id by another client: false, nothing brought back
        Permit other = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(otherClient.getLeasedSemaphore(name).release(other.id())).isTrue();
        assertThat(other.extendLease(Duration.ofSeconds(30))).isFalse();
        assertThat(semaphore.acquiredPermits()).isZero();
        assertThat(other.release()).isFalse();
        // released by id through this client: the handle is ended
        Permit mine = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(semaphore.tryRelease(mine.id())).isTrue();
        assertThatThrownBy(() -> mine.extendLease(Duration.ofSeconds(30))).isInstanceOf(IllegalStateException.class);

        Permit renewed = semaphore.acquire();
        assertThatThrownBy(() -> renewed.extendLease(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("watchdog").hasMessageContaining(name);
        assertThatThrownBy(() -> renewed.extendLeaseAsync(Duration.ofSeconds(5)).get(5, SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(renewed.isWatchdogRenewed()).isTrue();
        Permit fixed = semaphore.acquire(Duration.ofSeconds(5));
        assertThatThrownBy(() -> fixed.extendLease(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> fixed.extendLease(null)).isInstanceOf(NullPointerException.class);
        renewed.close();
        fixed.close();
        SemaphoreProbe.assertIdle(client);
    }

    /** Issue 27, failure 15: a second release of a handle throws, as its Javadoc now says; close() stays a no-op. */
    @Test
    void aSecondReleaseOfAHandleThrowsAndCloseAfterwardsDoesNothing(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire();
        assertThat(permit.release()).isTrue();
        assertThatThrownBy(permit::release).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name).hasMessageContaining(permit.id()).hasMessageContaining("released already");
        assertThatThrownBy(() -> permit.releaseAsync().get(5, SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        permit.close();
        permit.close();
        assertThat(semaphore.availablePermits()).as("given back once").isEqualTo(1);

        Permit closed = semaphore.acquire();
        closed.close();
        assertThatThrownBy(closed::release).as("close() is a release").isInstanceOf(IllegalStateException.class);
        assertThat(semaphore.tryRelease(closed.id())).as("the lenient form, by id").isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void badPermitCountsAreRefusedNamingTheSemaphore(LockClient client) {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        for (int bad : new int[] {0, -1, LeasedSemaphore.MAX_PERMITS_AT_ONCE + 1}) {
            assertThatThrownBy(() -> semaphore.acquire(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(name).hasMessageContaining("permits must be from 1 to");
            assertThatThrownBy(() -> semaphore.tryAcquire(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> semaphore.tryAcquireAsync(bad, Duration.ZERO, null))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> semaphore.acquire(2, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        assertThat(raw.exists(table)).isFalse();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void bothSemaphoresArePermitCounters(LockClient client) throws Exception {
        List<PermitCounter> counters = List.of(client.getSemaphore(name + ":plain"), client.getLeasedSemaphore(name));
        for (PermitCounter counter : counters) {
            assertThat(counter.trySetPermits(2)).isTrue();
            assertThat(counter.trySetPermitsAsync(2).get(5, SECONDS)).isFalse();
            counter.addPermits(1);
            assertThat(counter.availablePermitsAsync().get(5, SECONDS)).isEqualTo(3);
            counter.setPermits(1);
            assertThat(counter.availablePermits()).isEqualTo(1);
            assertThat(counter.delete()).isTrue();
            assertThat(counter.deleteAsync().get(5, SECONDS)).isFalse();
            assertThat(counter.trySetPermits(1, Duration.ofSeconds(30))).isTrue();
            assertThat(raw.pttl(counter.getName())).isBetween(1L, 30_000L);
        }
        assertThat(client.getLeasedSemaphore(name).tryAcquire(Duration.ofMillis(10))).isPresent()
                .hasValueSatisfying(Permit::close);
        assertThat(client.getLeasedSemaphore(name).tryAcquireAsync(Duration.ZERO).get(5, SECONDS)).isPresent()
                .hasValueSatisfying(Permit::close);
        assertThat(client.getLeasedSemaphore(name).tryAcquire(2, Duration.ofMillis(10), Duration.ofSeconds(9)))
                .as("one permit: none of two").isEmpty();
        assertThat(client.getLeasedSemaphore(name).availablePermits()).isEqualTo(1);
        assertThat(raw.sync().get(name + ":plain")).isEqualTo("1");
        assertThat(MILLISECONDS.toSeconds(raw.pttl(name))).isLessThanOrEqualTo(30);
        SemaphoreProbe.assertIdle(client);
    }
}
