package io.dlock.it;

import io.dlock.DistributedSemaphore;
import io.dlock.LockClient;
import io.dlock.NotALockException;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contract of {@link DistributedSemaphore} against a real server: counts, TTLs, waiting, bad input. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class SemaphoreIT {

    private static final long RECHECK_MS = DistributedSemaphore.RECHECK_INTERVAL.toMillis();

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:SemaphoreIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("semaphore-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    @Test
    void countsLikeAJdkSemaphore(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThat(semaphore.getName()).isEqualTo(name);
        assertThat(semaphore.availablePermits()).as("never set").isZero();
        assertThat(semaphore.tryAcquire()).as("a semaphore nobody set has no permits").isFalse();

        assertThat(semaphore.trySetPermits(3)).isTrue();
        assertThat(semaphore.trySetPermits(5)).as("already set").isFalse();
        assertThat(raw.sync().get(name)).isEqualTo("3");
        assertThat(semaphore.tryAcquire(2)).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        assertThat(semaphore.tryAcquire(2)).as("all or nothing").isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        semaphore.release(2);
        assertThat(semaphore.availablePermits()).isEqualTo(3);

        semaphore.addPermits(-5);
        assertThat(semaphore.availablePermits()).as("may go negative").isEqualTo(-2);
        assertThat(semaphore.tryAcquire()).isFalse();
        assertThat(semaphore.drainPermits()).isEqualTo(-2);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.trySetPermits(7)).as("an existing 0 counts as set").isFalse();
        semaphore.setPermits(4);
        assertThat(semaphore.drainPermits()).isEqualTo(4);
        assertThat(semaphore.drainPermits()).isZero();
        semaphore.release();
        assertThat(semaphore.tryAcquire()).isTrue();

        assertThat(semaphore.delete()).isTrue();
        assertThat(semaphore.delete()).isFalse();
        assertThat(raw.exists(name)).isFalse();
        assertThat(semaphore.drainPermits()).as("draining a missing semaphore creates nothing").isZero();
        assertThat(raw.exists(name)).isFalse();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aTtlSetWithTheCountIsKeptByEveryChange(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThat(semaphore.trySetPermits(2, Duration.ofSeconds(60))).isTrue();
        assertThat(raw.pttl(name)).isBetween(50_000L, 60_000L);
        semaphore.addPermits(1);
        assertThat(raw.pttl(name)).as("after addPermits (Redisson drops it)").isBetween(50_000L, 60_000L);
        assertThat(semaphore.tryAcquire(2)).isTrue();
        semaphore.release(2);
        semaphore.setPermits(5);
        assertThat(raw.pttl(name)).as("after setPermits").isBetween(50_000L, 60_000L);
        assertThat(semaphore.drainPermits()).isEqualTo(5);
        assertThat(raw.pttl(name)).as("after drainPermits (Redisson drops it)").isBetween(50_000L, 60_000L);

        assertThat(client.getSemaphore(name + ":short").trySetPermits(1, Duration.ofMillis(200))).isTrue();
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(name + ":short"), "the short-lived semaphore expires");
    }

    @Test
    void badInputIsRefusedNamingTheParameter(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        assertThatThrownBy(() -> semaphore.acquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits");
        assertThatThrownBy(() -> semaphore.tryAcquire(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> semaphore.release(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.addPermits(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delta");
        assertThatThrownBy(() -> semaphore.trySetPermits(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.trySetPermits(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
        assertThatThrownBy(() -> client.getSemaphore(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void aKeyOfAnotherTypeIsRefusedAndLeftAsItWas(LockClient client) {
        raw.sync().hset(name, "cart", "3 apples");
        DistributedSemaphore semaphore = client.getSemaphore(name);
        for (Runnable call : new Runnable[] {semaphore::tryAcquire, semaphore::release, () -> semaphore.addPermits(2),
                semaphore::drainPermits, () -> semaphore.trySetPermits(1), semaphore::availablePermits,
                semaphore::delete}) {
            assertThatThrownBy(call::run).isInstanceOf(NotALockException.class)
                    .hasMessageContaining("semaphore '" + name + "'").hasMessageNotContaining("apples");
        }
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofSeconds(5)))
                .as("a waiting acquisition is refused at once, not left waiting").isInstanceOf(NotALockException.class);
        assertThatThrownBy(() -> semaphore.deleteAsync().join()).as("the async delete is refused in its future")
                .hasCauseInstanceOf(NotALockException.class);
        assertThat(raw.hgetall(name)).containsExactlyEntriesOf(java.util.Map.of("cart", "3 apples"));

        raw.sync().set(name + ":s", "hello");
        DistributedSemaphore onString = client.getSemaphore(name + ":s");
        for (Runnable call : new Runnable[] {onString::release, onString::delete}) {
            assertThatThrownBy(call::run).isInstanceOf(NotALockException.class)
                    .hasMessageContaining("semaphore '" + name + ":s'").hasMessageContaining("not a permit count");
        }
        assertThat(raw.sync().get(name + ":s")).isEqualTo("hello");
        raw.sync().rpush(name + ":l", "a", "b");
        assertThatThrownBy(client.getSemaphore(name + ":l")::delete).isInstanceOf(NotALockException.class)
                .hasMessageContaining("semaphore '" + name + ":l'").hasMessageContaining("list");
        assertThat(raw.sync().lrange(name + ":l", 0, -1)).as("the list is left as it was").containsExactly("a", "b");
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aReleaseWakesAWaiterAtOnce(LockClient a, LockClient b) {
        DistributedSemaphore semaphore = a.getSemaphore(name);
        semaphore.trySetPermits(1);
        Future<Long> waiter = workers.submit(() -> {
            semaphore.acquire(2);
            return System.nanoTime();
        });
        SemaphoreProbe.awaitWaiters(a, 1);
        Await.until(Duration.ofSeconds(5), () -> raw.subscribers("redisson_sc:{" + name + "}") == 1,
                "the waiter subscribes to the semaphore's channel");
        long released = System.nanoTime();
        b.getSemaphore(name).release();
        long at = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).as("ms from release to acquisition")
                .isLessThan(RECHECK_MS / 2);
        assertThat(semaphore.availablePermits()).isZero();
        SemaphoreProbe.assertIdle(a);
    }

    @Test
    void aWaiterMissingTheMessageRechecksWithinTheInterval(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        Future<Long> waiter = workers.submit(() -> {
            semaphore.acquire();
            return System.nanoTime();
        });
        SemaphoreProbe.awaitWaiters(client, 1);
        Await.until(Duration.ofSeconds(5), () -> raw.subscribers("redisson_sc:{" + name + "}") == 1,
                "the waiter subscribes");
        long released = System.nanoTime();
        raw.sync().incrby(name, 1); // a release that publishes nothing
        long at = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).as("ms from silent release to acquisition")
                .isLessThanOrEqualTo(RECHECK_MS + 500);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aTimedWaitEndsAtItsDeadlineAndLeavesNothing(LockClient client) throws InterruptedException {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(0);
        long start = System.nanoTime();
        assertThat(semaphore.tryAcquire(1, Duration.ofMillis(300))).isFalse();
        assertThat(Await.millisSince(start)).isBetween(290L, 300L + RECHECK_MS);
        assertThat(semaphore.availablePermits()).isZero();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void anAbandonedWaitTakesNothing(LockClient client) throws Exception {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        CompletableFuture<Void> cancelled = semaphore.acquireAsync(2);
        SemaphoreProbe.awaitWaiters(client, 1);
        cancelled.cancel(true);
        Future<Void> interrupted = workers.submit(() -> {
            semaphore.acquire();
            return null;
        });
        SemaphoreProbe.awaitWaiters(client, 1);
        workers.close(); // interrupts the worker
        assertThatThrownBy(() -> interrupted.get(10, SECONDS)).hasCauseInstanceOf(InterruptedException.class);
        SemaphoreProbe.awaitWaiters(client, 0);
        semaphore.release(3);
        Thread.sleep(200);
        assertThat(semaphore.availablePermits()).as("nobody took anything").isEqualTo(3);
        assertThat(semaphore.tryAcquireAsync(3).get(5, SECONDS)).isTrue();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void anUnlimitedWaitOutlastsAnOutageAndATimedOneFails(RedisServer server,
            @io.dlock.testkit.ClientSettings(watchdogTimeoutMillis = 3000) LockClient client) throws Exception {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(3);
        assertThat(semaphore.tryAcquire()).isTrue(); // warm: scripts loaded
        semaphore.release();
        server.pause();
        CompletableFuture<Void> unlimited;
        try {
            // permits are there: every attempt Redis runs after the outage would take one, were it not undone
            unlimited = semaphore.acquireAsync();
            // a wait past the command timeout (750 ms): its attempt times out, Redis is unavailable. A wait ending
            // within the first command timeout of the silence would answer false: a slow answer (issue 43)
            assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofSeconds(1)))
                    .isInstanceOf(io.dlock.LockException.class).hasMessageContaining(name);
            // attempts time out meanwhile (command timeout 1 s) and are sent again
            Await.during(Duration.ofMillis(3500), () -> !unlimited.isDone(), () -> "acquired while Redis was paused");
        } finally {
            server.resume();
        }
        unlimited.get(10, SECONDS);
        Await.until(Duration.ofSeconds(5), () -> semaphore.availablePermits() == 2,
                () -> "permits after one acquisition through the outage: " + semaphore.availablePermits());
        semaphore.release();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        SemaphoreProbe.assertIdle(client);
    }
}
