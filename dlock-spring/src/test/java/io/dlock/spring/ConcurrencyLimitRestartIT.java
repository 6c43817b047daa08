package io.dlock.spring;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockLostException;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DistributedConcurrencyLimit} across a restart of Redis without persistence (issue 27, failure 8): the
 * semaphore is gone, and the limit sets its permits up again instead of refusing every call ("all 2 permits are
 * taken") or leaving {@code waitTime = "forever"} calls waiting for good. Permits held across the restart are lost
 * with it: their calls end with {@link LockLostException} (the limit may have been exceeded meanwhile). This class
 * has a Redis server of its own ({@link RedisExtension} gives each test class one), which it restarts.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConcurrencyLimitRestartIT {
    /** Reconnecting after the restart plus one wait slice of the limit; far below a hang. */
    private static final Duration BACK_WITHIN = Duration.ofSeconds(10);

    private final LimitedService.Shared shared = new LimitedService.Shared();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private RedisServer redis;
    private Instances instances;
    private LimitedService a;
    private LimitedService b;
    private LockClient clientOfA;

    @BeforeEach
    void startTwoInstances(RedisServer redis) {
        this.redis = redis;
        instances = new Instances(redis.uri());
        AnnotationConfigApplicationContext first = instances.start(List.of(shared),
                ConcurrencyLimitIT.ServiceConfig.class);
        a = service(first);
        clientOfA = first.getBean(LockClient.class);
        b = service(instances.start(List.of(shared), ConcurrencyLimitIT.ServiceConfig.class));
    }

    private static LimitedService service(AnnotationConfigApplicationContext context) {
        LimitedService proxy = context.getBean(LimitedService.class);
        proxy.self(proxy);
        return proxy;
    }

    @AfterEach
    void stop() throws InterruptedException {
        shared.release.countDown();
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        instances.close();
    }

    /** Restarts Redis (empty, same port) and waits until {@code client} answers again. */
    private void restartRedis(LockClient client) {
        redis.restart();
        Await.until(BACK_WITHIN, () -> {
            try {
                client.getLeasedSemaphore("probe").availablePermits();
                return true;
            } catch (LockException e) {
                return false;
            }
        }, "the client should be connected again after the restart");
    }

    /** Subscribers of the semaphore's channel on the server: a waiting call subscribes. */
    private long waitingOn(String semaphore) {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> connection = raw.connect()) {
            Map<String, Long> counts = connection.sync().pubsubNumsub("redisson_sc:{" + semaphore + "}");
            return counts.values().stream().mapToLong(Long::longValue).sum();
        } finally {
            raw.shutdown();
        }
    }

    @Test
    void callsRunAgainAfterRedisLostTheSemaphoreAndTheLimitStillHolds(LockClient observer) throws Exception {
        assertThat(a.skipWhenBusy("r")).as("the semaphore is set up with the first call").isEqualTo("ran r");
        assertThat(b.skipWhenBusy("r")).as("both instances made sure of its permits").isEqualTo("ran r");
        restartRedis(clientOfA);
        LeasedSemaphore semaphore = observer.getLeasedSemaphore("exports:r");
        assertThat(semaphore.availablePermits()).as("Redis lost the semaphore").isZero();

        int runs = shared.runs.get();
        b.waitBriefly("r");
        assertThat(a.skipWhenBusy("r")).as("a call with whenBusy = SKIP runs, not skipped").isEqualTo("ran r");
        assertThat(shared.runs.get()).as("both calls ran").isEqualTo(runs + 2);
        assertThat(semaphore.availablePermits()).as("set up again with the annotation's permits").isEqualTo(2);
        assertThat(semaphore.acquiredPermits()).isZero();

        // the limit holds again: two calls inside, a third refused, with a message that is true now
        shared.entered = new CountDownLatch(2);
        Future<String> first = threads.submit(() -> a.hold("r"));
        Future<String> second = threads.submit(() -> b.hold("r"));
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> a.waitBriefly("r")).isInstanceOf(ConcurrencyLimitReachedException.class)
                .hasMessageContaining("all 2 permits of semaphore 'exports:r' are taken");
        shared.release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("held r");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("held r");
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }

    @Test
    void aCallWaitingForeverRunsOnceRedisLostTheSemaphoreAndTheHoldersLearnTheirPermitsWereLost(LockClient observer)
            throws Exception {
        shared.entered = new CountDownLatch(2);
        Future<String> first = threads.submit(() -> a.hold("f"));
        Future<String> second = threads.submit(() -> b.hold("f"));
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        int runs = shared.runs.get();
        Future<String> waiting = threads.submit(() -> a.waitForever("f"));
        Await.until(Duration.ofSeconds(5), () -> waitingOn("exports:f") >= 1,
                "the third call should wait for a permit");
        assertThat(waiting).isNotDone();

        restartRedis(observer);
        assertThat(waiting.get(BACK_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).as("the waiting call ran")
                .isEqualTo("waited f");
        assertThat(shared.runs.get()).isEqualTo(runs + 1);

        shared.release.countDown();
        for (Future<String> holder : List.of(first, second)) {
            assertThatThrownBy(() -> holder.get(10, TimeUnit.SECONDS)).as("a call whose permit Redis lost")
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockLostException.class)
                    .hasMessageContaining("semaphore 'exports:f'");
        }
        LeasedSemaphore semaphore = observer.getLeasedSemaphore("exports:f");
        assertThat(semaphore.availablePermits()).as("the lost permits did not come back on top").isEqualTo(2);
        assertThat(semaphore.acquiredPermits()).isZero();
    }
}
