package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockLostException;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A latch whose Redis restarts without persistence while awaiters wait (issue 27 #6): the key is gone, which Redis's
 * wire reads as "open", but the client saw the latch closed on the server's previous run, so it knows the count was
 * lost, not counted down. Every await that saw it closed — timed and untimed, sync and async — fails with
 * {@link LockLostException} naming the latch, none returns {@code true}, and nothing is published to Redisson's
 * awaiters. What reads Redis afterwards reads what it holds ({@code getCount()} 0), and a latch set again after the
 * restart opens as usual. Standalone server (the test kit's, {@code --save '' --appendonly no}), 30 s watchdog: the
 * bounded re-check is 10 s, so what happens within a few seconds of the restart follows the reconnect.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class LatchRestartIT {
    static final Duration OUTCOME = Duration.ofSeconds(10);
    /** Far below the bounded re-check (10 s with the default watchdog): a wake-up within it came from a message. */
    static final Duration WAKE_UP = Duration.ofSeconds(2);

    String name;
    RawRedis raw;
    Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("latch-restart");
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
        } finally {
            raw.close();
        }
    }

    @Test
    void aRestartThatLosesAClosedLatchFailsEveryAwaitThatSawItClosed(RedisServer redis, LockClient a)
            throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(3, Duration.ofHours(1))).isTrue();
        Map<String, Future<?>> awaits = startFourAwaits(a, latch);

        redis.restart();

        for (Map.Entry<String, Future<?>> await : awaits.entrySet()) {
            Throwable failure = Workers.failureOf(await.getValue(), OUTCOME);
            assertThat(failure).as(await.getKey()).isInstanceOf(LockLostException.class)
                    .hasMessageContaining("count-down latch '" + name + "'")
                    .hasMessageContaining("Redis lost the latch's count");
            assertThat(((LockLostException) failure).lockName()).isEqualTo(name);
        }
        // documented: the state reads what Redis holds now; one command connection, so this also comes after any
        // announcement the awaiters' group might have sent
        assertThat(latch.getCount()).isZero();
        assertThat(latch.remainTimeToLive()).isEqualTo(-2L);
        assertThat(raw.commandCalls("publish")).as("no 'opened' published for a latch the restart lost").isZero();
        assertThat(raw.exists(name)).isFalse();
        // an await that never saw the latch closed cannot tell: it reads an open latch
        assertThat(latch.await(5, SECONDS)).isTrue();

        // a latch set again on the new run opens as usual: no loss reported for it
        assertThat(latch.trySetCount(1)).isTrue();
        Map<String, Future<?>> again = startFourAwaits(a, latch);
        a.getCountDownLatch(name).countDown();
        long opened = System.nanoTime();
        for (Map.Entry<String, Future<?>> await : again.entrySet()) {
            Object result = Workers.get(await.getValue(), OUTCOME);
            assertThat(result).as(await.getKey()).isNotEqualTo(Boolean.FALSE);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - opened)).as("woken by the opening's message")
                .isLessThan(WAKE_UP);
    }

    /**
     * The chaos run's case (seed 466407): awaits whose first check is sent to the server just before it dies. They
     * never read the latch closed, but they began on the old run and the client sees the run change: neither reads
     * the lost latch as open. The check written to the dying server fails with the connection (Lettuce does not send
     * a written command again): the timed await ends with that failure ({@code LockException}, as any timed await
     * that Redis fails); the untimed one keeps waiting through the outage, and its next check, on the new run, finds
     * the key gone on another run than the one it began on: {@link LockLostException}. (A check issued after the drop
     * but before the client learned of it is queued and sent after the reconnect instead: then the timed await finds
     * the same, and fails with {@link LockLostException} too; that order cannot be forced from here.)
     */
    @Test
    void anAwaitWhoseFirstCheckCrossesTheRestartNeverReadsTheLostLatchOpen(RedisServer redis, LockClient a)
            throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(3, Duration.ofHours(1))).isTrue();
        assertThat(latch.await(0, MILLISECONDS)).as("closed; the client now knows the server's run").isFalse();
        RedisLockClient internal = (RedisLockClient) a;
        Future<Boolean> timed;
        Future<Void> untimed;
        redis.pause();
        try {
            timed = latch.awaitAsync(20, SECONDS);
            untimed = latch.awaitAsync();
            Await.until(Duration.ofSeconds(5), () -> internal.latchWaitingCount() == 2, "two awaits waiting");
            Thread.sleep(200); // their check is written to the stopped server, unanswered
        } finally {
            redis.kill();
        }
        redis.restart();

        assertThat(Workers.failureOf(timed, OUTCOME)).as("await(20 s): failed with Redis, never true")
                .isInstanceOf(LockException.class).hasMessageContaining("count-down latch '" + name + "'");
        assertThat(Workers.failureOf(untimed, OUTCOME)).as("await()").isInstanceOf(LockLostException.class)
                .hasMessageContaining("count-down latch '" + name + "'")
                .hasMessageContaining("Redis lost the latch's count")
                .hasMessageContaining("began on run");
        assertThat(raw.commandCalls("publish")).as("no 'opened' published for a latch the restart lost").isZero();
        assertThat(latch.await(5, SECONDS)).as("an await that begins on the new run reads what Redis holds")
                .isTrue();
    }

    @Test
    void countDownsOpenTheLatchForEveryAwaitAsBefore(LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(3, Duration.ofHours(1))).isTrue();
        Map<String, Future<?>> awaits = startFourAwaits(a, latch);
        for (int i = 0; i < 3; i++) {
            b.getCountDownLatch(name).countDown();
        }
        long opened = System.nanoTime();
        for (Map.Entry<String, Future<?>> await : awaits.entrySet()) {
            Object result = Workers.get(await.getValue(), OUTCOME);
            assertThat(result).as(await.getKey()).isNotEqualTo(Boolean.FALSE);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - opened)).as("woken by the opening's message")
                .isLessThan(WAKE_UP);
        assertThat(latch.getCount()).isZero();
        assertThat(((RedisLockClient) a).latchWaitingCount()).isZero();
    }

    /**
     * Starts a timed and an untimed await, each sync (on a worker) and async, on a closed latch, and returns once every
     * one has been told the latch is closed: a probe {@code await(0)} of the same client rides a check sent after they
     * all joined, and its answer is given to the members in join order, the probe last.
     */
    private Map<String, Future<?>> startFourAwaits(LockClient client, DistributedCountDownLatch latch)
            throws InterruptedException {
        RedisLockClient internal = (RedisLockClient) client;
        int before = internal.latchWaitingCount();
        Map<String, Future<?>> awaits = new LinkedHashMap<>();
        awaits.put("await(20 s), async", latch.awaitAsync(20, SECONDS));
        CompletableFuture<Void> untimed = latch.awaitAsync();
        awaits.put("await(), async", untimed);
        awaits.put("await(20 s)", workers.submit(() -> latch.await(20, SECONDS)));
        awaits.put("await()", workers.submit(() -> {
            latch.await();
            return null;
        }));
        Await.until(Duration.ofSeconds(5), () -> internal.latchWaitingCount() == before + 4, "four awaits waiting");
        assertThat(latch.await(0, MILLISECONDS)).as("closed").isFalse();
        assertThat(awaits.values()).noneMatch(Future::isDone);
        return awaits;
    }
}
