package io.dlock.it;

import io.dlock.LeaseLostEvent;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.NotALockException;
import io.dlock.Permit;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract of {@link LeasedSemaphore} and {@link Permit} against a real server. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class LeasedSemaphoreIT {

    private static final long WATCHDOG_MS = 900;

    private String name;
    private String table;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:LeasedSemaphoreIT:" + info.getTestMethod().orElseThrow().getName();
        table = "{" + name + "}:timeout";
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("leased-worker");
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

    @Test
    void permitsAreHandlesWithIdsReleasedOnce(@ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client)
            throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.tryAcquire()).as("never set: no permits").isEmpty();
        assertThat(semaphore.trySetPermits(2)).isTrue();
        assertThat(semaphore.trySetPermits(2)).isFalse();

        Permit first = semaphore.acquire();
        assertThat(first.id()).matches("[0-9a-f]{32}");
        assertThat(first.semaphoreName()).isEqualTo(name);
        assertThat(first.isWatchdogRenewed()).isTrue();
        assertThat(first.leaseValidFor()).isBetween(Duration.ofMillis(WATCHDOG_MS / 2), Duration.ofMillis(WATCHDOG_MS));
        Permit second = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(second.isWatchdogRenewed()).isFalse();
        assertThat(second.id()).isNotEqualTo(first.id());
        assertThat(semaphore.tryAcquire()).isEmpty();
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.acquiredPermits()).isEqualTo(2);
        assertThat(raw.sync().zcard(table)).isEqualTo(2);
        List<String> scores = raw.sync().zrangeWithScores(table, 0, -1).stream()
                .map(s -> Long.toString((long) s.getScore())).toList();
        long serverNowMs = raw.sync().time().stream().findFirst().map(s -> Long.parseLong(s) * 1000).orElseThrow();
        assertThat(scores).allSatisfy(s -> assertThat(Long.parseLong(s))
                .as("expiries in epoch ms by the server's clock").isBetween(serverNowMs, serverNowMs + 31_000));

        // the watchdog keeps the renewed permit for longer than one lease
        Thread.sleep(WATCHDOG_MS * 2);
        assertThat(first.leaseValidFor()).isPositive();
        assertThat(semaphore.acquiredPermits()).isEqualTo(2);

        assertThat(first.release()).as("released while valid").isTrue();
        assertThat(first.leaseValidFor()).isZero();
        assertThatThrownBy(first::release).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(first.id()).hasMessageContaining(name);
        first.close(); // no-op
        assertThat(semaphore.availablePermits()).as("given back once").isEqualTo(1);
        try (Permit third = semaphore.acquireAsync().get(5, SECONDS)) {
            assertThat(semaphore.availablePermits()).isZero();
            assertThat(third.id()).isNotEqualTo(first.id());
        }
        assertThat(second.releaseAsync().get(5, SECONDS)).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(raw.exists(table)).as("an empty table is no key").isFalse();
        assertThat(semaphore.delete()).isTrue();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aFixedLeaseEndsByItselfIsReportedAndItsReleaseSaysSo(
            @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client) throws Exception {
        BlockingQueue<LeaseLostEvent> lost = losses(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire(Duration.ofMillis(300));
        long owner = Thread.currentThread().getId();
        LeaseLostEvent event = lost.poll(5, SECONDS);
        assertThat(event).as("reported lost").isNotNull();
        assertThat(event.lockName()).isEqualTo(name);
        assertThat(event.ownerId()).isEqualTo(owner);
        assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
        assertThat(permit.leaseValidFor()).isZero();
        Thread.sleep(100);
        assertThat(permit.release()).as("the lease had ended: not valid any more").isFalse();
        assertThat(semaphore.availablePermits()).as("given back exactly once").isEqualTo(1);
        assertThat(lost.poll(200, TimeUnit.MILLISECONDS)).as("reported once").isNull();

        // reclaimed by an acquisition before its holder releases it
        Permit other = semaphore.acquire(Duration.ofMillis(200));
        Thread.sleep(400);
        Permit next = semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
        assertThat(other.release()).as("expired and reclaimed").isFalse();
        assertThat(semaphore.availablePermits()).isZero();
        next.close();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aWaiterGetsAPermitWhenItsLeaseEndsWithoutAMessage(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire(Duration.ofMillis(400));
        long start = System.nanoTime();
        Optional<Permit> next = semaphore.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(10));
        assertThat(next).isPresent();
        assertThat(Await.millisSince(start)).as("ms until the expired permit came back").isBetween(300L, 1400L);
        next.get().close();
    }

    @Test
    void aRemovedPermitIsReportedAtTheNextRenewal(
            @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client, LockClient other)
            throws Exception {
        BlockingQueue<LeaseLostEvent> lost = losses(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire();
        assertThat(other.getLeasedSemaphore(name).release(permit.id())).as("released by id by another client")
                .isTrue();
        LeaseLostEvent event = lost.poll(5, SECONDS);
        assertThat(event).isNotNull();
        assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        assertThat(permit.leaseValidFor()).isZero();
        assertThat(permit.release()).as("not held any more").isFalse();
        assertThat(semaphore.availablePermits()).as("never given back twice").isEqualTo(1);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void anExpiredPermitIsReclaimedByTheFirstAcquisitionThatNeedsIt(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(3);
        Permit expiring = semaphore.acquire(Duration.ofMillis(100));
        double expiry = raw.sync().zrangeWithScores(table, 0, 0).get(0).getScore();
        Await.until(Duration.ofSeconds(5), () -> {
            List<String> time = raw.sync().time();
            return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000 > expiry;
        }, "the server's clock passed the permit's expiry");

        // the count covers these two: they leave the expired permit in the table (it changes nothing for them)
        Permit second = semaphore.acquire(Duration.ofSeconds(30));
        Permit third = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(raw.sync().zcard(table)).as("the expired permit not reclaimed yet").isEqualTo(3);
        assertThat(raw.sync().get(name)).isEqualTo("0");
        // the count does not cover this one: it reclaims the expired permit and takes it
        Permit fourth = semaphore.tryAcquire().orElseThrow();
        assertThat(raw.sync().zcard(table)).isEqualTo(3);
        assertThat(raw.sync().get(name)).isEqualTo("0");
        assertThat(expiring.release()).as("its permit was reclaimed and taken by another").isFalse();
        for (Permit permit : List.of(second, third, fourth)) {
            assertThat(permit.release()).isTrue();
        }
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void badInputAndWrongTypesAreRefused(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        assertThatThrownBy(() -> semaphore.release("0123456789abcdef0123456789abcdef"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name)
                .hasMessageContaining("no permit with id 0123456789abcdef0123456789abcdef");
        assertThatThrownBy(() -> semaphore.release("not-an-id")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("not a permit id");
        assertThatThrownBy(() -> semaphore.release((String) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> semaphore.acquire(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofMillis(-1), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> semaphore.setPermits(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.addPermits(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(semaphore.availablePermits()).isEqualTo(1);

        raw.sync().set(table, "x");
        assertThatThrownBy(semaphore::tryAcquire).isInstanceOf(NotALockException.class)
                .hasMessageContaining("leased semaphore '" + name + "'").hasMessageContaining("permit table");
        assertThat(raw.sync().get(table)).as("the table's refusal changed nothing").isEqualTo("x");
        assertThat(raw.sync().get(name)).as("no permit taken without its id").isEqualTo("1");
        assertThatThrownBy(semaphore::delete).as("a delete over a table of the wrong type removes neither key")
                .isInstanceOf(NotALockException.class).hasMessageContaining("leased semaphore '" + name + "'")
                .hasMessageContaining("permit table");
        assertThat(raw.sync().get(table)).isEqualTo("x");
        assertThat(raw.sync().get(name)).isEqualTo("1");
        raw.sync().del(table);

        // a release that meets a count which is no permit count gives nothing back and changes nothing
        Permit held = semaphore.acquire(Duration.ofSeconds(30));
        raw.sync().set(name, "many");
        assertThatThrownBy(held::release).isInstanceOf(NotALockException.class)
                .hasMessageContaining("leased semaphore '" + name + "'").hasMessageContaining("not a permit count");
        assertThat(raw.sync().zcard(table)).as("the permit stays in the table").isEqualTo(1);
        assertThat(raw.sync().get(name)).isEqualTo("many");
        assertThatThrownBy(semaphore::delete).as("a delete over a string that is no permit count removes nothing")
                .isInstanceOf(NotALockException.class).hasMessageContaining("leased semaphore '" + name + "'")
                .hasMessageContaining("not a permit count");
        assertThat(raw.sync().get(name)).isEqualTo("many");
        assertThat(raw.sync().zcard(table)).isEqualTo(1);
        raw.sync().del(name, table);
        raw.sync().lpush(name + ":l", "a");
        LeasedSemaphore onList = client.getLeasedSemaphore(name + ":l");
        for (Runnable call : new Runnable[] {onList::availablePermits, onList::delete,
                () -> onList.deleteAsync().join()}) {
            assertThatThrownBy(call::run).satisfiesAnyOf(
                    e -> assertThat(e).isInstanceOf(NotALockException.class),
                    e -> assertThat(e).hasCauseInstanceOf(NotALockException.class))
                    .hasMessageContaining("leased semaphore '" + name + ":l'").hasMessageContaining("list");
        }
        assertThat(raw.sync().lrange(name + ":l", 0, -1)).as("the list is left as it was").containsExactly("a");
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void setAndAddCountAcquiredPermitsAndTheTtlCoversBothKeys(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(3, Duration.ofSeconds(60))).isTrue();
        Permit permit = semaphore.acquire(Duration.ofSeconds(30));
        assertThat(raw.pttl(table)).as("the table takes the count's TTL").isBetween(50_000L, 60_000L);
        semaphore.setPermits(5);
        assertThat(semaphore.availablePermits()).as("5 in all, 1 acquired").isEqualTo(4);
        semaphore.addPermits(-2);
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(raw.pttl(name)).as("TTL kept").isBetween(50_000L, 60_000L);
        permit.close();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        assertThat(semaphore.delete()).isTrue();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void anAbandonedWaitHoldsNothing(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(0);
        CompletableFuture<Permit> cancelled = semaphore.acquireAsync();
        SemaphoreProbe.awaitWaiters(client, 1);
        cancelled.cancel(true);
        SemaphoreProbe.awaitWaiters(client, 0);
        semaphore.addPermits(1);
        Await.during(Duration.ofMillis(300), () -> semaphore.availablePermits() == 1,
                "the abandoned wait takes nothing");
        assertThat(semaphore.acquiredPermits()).isZero();
        Future<Permit> waiter = workers.submit(() -> semaphore.acquire());
        Permit permit = Workers.get(waiter, Duration.ofSeconds(5));
        permit.close();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void closingTheClientReportsHeldPermits(@ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS) LockClient client,
                                            LockClient other) throws Exception {
        BlockingQueue<LeaseLostEvent> lost = losses(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit permit = semaphore.acquire();
        client.close();
        LeaseLostEvent event = lost.poll(5, SECONDS);
        assertThat(event).isNotNull();
        assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.RENEWAL_FAILED);
        assertThat(permit.leaseValidFor()).isZero();
        long start = System.nanoTime();
        assertThat(other.getLeasedSemaphore(name).tryAcquire(Duration.ofSeconds(5), null)).isPresent();
        assertThat(Await.millisSince(start)).as("the permit comes back within its lease").isLessThan(WATCHDOG_MS + 1000);
    }
}
