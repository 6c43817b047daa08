package io.dlock.spring;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link DistributedConcurrencyLimit} on two application contexts sharing one Redis (two instances of a service). */
@ExtendWith(RedisExtension.class)
class ConcurrencyLimitIT {

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking(proxyTargetClass = true)
    @Import(LimitedService.class)
    public static class ServiceConfig {
    }

    private final LimitedService.Shared shared = new LimitedService.Shared();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Instances instances;
    private LimitedService a;
    private LimitedService b;

    @BeforeEach
    void startTwoInstances(RedisServer redis) {
        instances = new Instances(redis.uri());
        a = service(instances.start(List.of(shared), ServiceConfig.class));
        b = service(instances.start(List.of(shared), ServiceConfig.class));
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

    @Test
    void atMostPermitsCallsRunAtOnceAcrossInstances(LockClient observer) throws Exception {
        int perThread = 15;
        List<Future<?>> calls = new ArrayList<>();
        for (LimitedService instance : List.of(a, b)) {
            for (int t = 0; t < 4; t++) {
                calls.add(threads.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        instance.callPartner();
                    }
                }));
            }
        }
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        assertThat(shared.runs.get()).isEqualTo(2 * 4 * perThread);
        assertThat(shared.maxInside.get()).as("calls inside at once, 8 threads on 3 permits").isEqualTo(3);
        LeasedSemaphore semaphore = observer.getLeasedSemaphore("partner-api");
        assertThat(semaphore.acquiredPermits()).as("permits left taken").isZero();
        assertThat(semaphore.availablePermits()).isEqualTo(3);
    }

    @Test
    void busyCallsThrowOrSkipOrWaitOnTheOtherInstance(LockClient observer) throws Exception {
        shared.entered = new CountDownLatch(2);
        Future<String> first = threads.submit(() -> a.hold("t1"));
        Future<String> second = threads.submit(() -> b.hold("t1"));
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        LeasedSemaphore semaphore = observer.getLeasedSemaphore("exports:t1");
        assertThat(semaphore.acquiredPermits()).as("one leased permit per running call").isEqualTo(2);
        int runs = shared.runs.get();

        assertThatThrownBy(() -> a.hold("t1"))
                .isInstanceOf(ConcurrencyLimitReachedException.class)
                .isInstanceOf(LockBusyException.class)
                .hasMessageContaining("LimitedService.hold(String)")
                .hasMessageContaining("all 2 permits of semaphore 'exports:t1'")
                .satisfies(e -> {
                    ConcurrencyLimitReachedException busy = (ConcurrencyLimitReachedException) e;
                    assertThat(busy.getLockName()).isEqualTo("exports:t1");
                    assertThat(busy.getPermits()).isEqualTo(2);
                    assertThat(busy.getWaitTime()).isEqualTo(Duration.ZERO);
                });
        assertThat(b.skipWhenBusy("t1")).as("skipped").isNull();
        long start = System.nanoTime();
        assertThatThrownBy(() -> b.waitBriefly("t1")).isInstanceOf(ConcurrencyLimitReachedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(280));
        assertThat(shared.runs.get()).as("no busy call ran").isEqualTo(runs);
        assertThat(b.skipWhenBusy("t2")).as("another name has its own permits").isEqualTo("ran t2");

        shared.release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("held t1");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("held t1");
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(a.skipWhenBusy("t1")).isEqualTo("ran t1");
    }

    @Test
    void aWaitingCallRunsWhenAPermitComesBack(RedisServer redis) throws Exception {
        shared.entered = new CountDownLatch(2);
        Future<String> first = threads.submit(() -> a.hold("t3"));
        Future<String> second = threads.submit(() -> b.hold("t3"));
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        int runs = shared.runs.get();
        Future<?> waiting = threads.submit(() -> a.waitPatiently("t3"));
        // the call waits: subscribed to the semaphore's channel, as the server says
        Await.until(Duration.ofSeconds(10), () -> subscribers(redis, "redisson_sc:{exports:t3}") == 1,
                "the waiting call subscribes to the semaphore's channel");
        assertThat(waiting).as("waiting while both permits are taken").isNotDone();
        assertThat(shared.runs).as("the waiting call has not run").hasValue(runs);
        shared.release.countDown();
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(shared.runs).as("it ran once a permit came back").hasValue(runs + 1);
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
    }

    @Test
    void thePermitComesBackWhenTheMethodThrows(LockClient observer) {
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> a.fail()).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        }
        assertThat(observer.getLeasedSemaphore("failing").availablePermits()).isEqualTo(1);
        assertThat(observer.getLeasedSemaphore("failing").acquiredPermits()).isZero();
    }

    @Test
    void nestedCallsOfOneNameShareTheOuterPermit() {
        assertThat(a.recurse(3)).as("a 1-permit method calling itself does not wait for its own permit").isEqualTo(3);
    }

    @Test
    void aLeaseThatEndsDuringTheCallFailsIt() {
        assertThatThrownBy(() -> a.outliveLease())
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining("semaphore 'short-lease' ended before the method returned");
    }

    @Test
    void theAnnotationSetsTheTotalOfAnExistingSemaphore(LockClient observer) throws Exception {
        LeasedSemaphore semaphore = observer.getLeasedSemaphore("resized");
        assertThat(semaphore.trySetPermits(9)).isTrue();
        try (var held = semaphore.acquire()) {
            a.resized();
            assertThat(semaphore.acquiredPermits()).as("the permit held elsewhere stays held").isEqualTo(1);
            assertThat(semaphore.availablePermits()).as("4 in all, one of them held").isEqualTo(3);
        }
        assertThat(semaphore.availablePermits()).isEqualTo(4);
        b.resized();
        assertThat(semaphore.availablePermits()).isEqualTo(4);
    }

    @Test
    void aCreatedSemaphoreGetsThePermits(LockClient observer) {
        assertThat(b.skipWhenBusy("fresh")).isEqualTo("ran fresh");
        assertThat(observer.getLeasedSemaphore("exports:fresh").availablePermits()).isEqualTo(2);
    }

    @Test
    void aReturnedFutureFailsTheCallAndGivesThePermitBack(LockClient observer) {
        assertThatThrownBy(() -> a.deferred())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedConcurrencyLimit on LimitedService.deferred()")
                .hasMessageContaining("CompletableFuture");
        assertThat(observer.getLeasedSemaphore("deferred").availablePermits()).isEqualTo(1);
    }

    @Test
    void withALockThePermitIsTakenOutside(LockClient observer) throws Exception {
        List<Future<?>> calls = new ArrayList<>();
        for (LimitedService instance : List.of(a, b)) {
            for (int t = 0; t < 3; t++) {
                calls.add(threads.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        instance.limitedAndLocked();
                    }
                }));
            }
        }
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        assertThat(shared.maxInside.get()).as("the lock still excludes").isEqualTo(1);
        assertThat(observer.getLeasedSemaphore("both").availablePermits()).isEqualTo(2);
        assertThat(observer.getLock("both-lock").isLocked()).isFalse();
    }

    /** A method returning a future cannot be limited. */
    public static class FutureService {
        @DistributedConcurrencyLimit(name = "f", permits = 2)
        public CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("x");
        }
    }

    /** Zero permits would let no call run. */
    public static class ZeroPermitsService {
        @DistributedConcurrencyLimit(name = "z", permits = 0)
        public void never() {
        }
    }

    /** A misspelt parameter in the name. */
    public static class BadNameService {
        @DistributedConcurrencyLimit(name = "x:#{#tenatn}", permits = 2)
        public void run(String tenant) {
        }
    }

    @Test
    void invalidAttributesFailTheStartUp(RedisServer redis) {
        assertThat(Instances.startupFailure(redis.uri(), FutureService.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedConcurrencyLimit on FutureService.later()")
                .hasMessageContaining("CompletableFuture")
                .hasMessageContaining("permit is already released");
        assertThat(Instances.startupFailure(redis.uri(), ZeroPermitsService.class))
                .hasMessageContaining("@DistributedConcurrencyLimit on ZeroPermitsService.never(): permits = 0");
        assertThat(Instances.startupFailure(redis.uri(), BadNameService.class))
                .hasMessageContaining("@DistributedConcurrencyLimit on BadNameService.run(String)")
                .hasMessageContaining("tenatn");
    }

    /** PUBSUB NUMSUB of one channel. */
    private static long subscribers(RedisServer redis, String channel) {
        List<?> reply = (List<?>) redis.command(Duration.ofSeconds(5), "PUBSUB", "NUMSUB", channel);
        return Long.parseLong(String.valueOf(reply.get(1)));
    }
}
