package io.dlock.spring;

import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two application contexts on one Redis act as two instances of a service. */
@ExtendWith(RedisExtension.class)
class DistributedLockedIT {

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import(LockedService.class)
    public static class ServiceConfig {
        @Bean
        public LockedService.Tenant tenant() {
            return new LockedService.Tenant();
        }
    }

    private final LockedService.Shared shared = new LockedService.Shared();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Instances instances;
    private LockedService a;
    private LockedService b;

    @BeforeEach
    void startTwoInstances(RedisServer redis) {
        shared.reset();
        instances = new Instances(redis.uri());
        a = service(instances.start(Map.of("app.name", "billing"), List.of(shared), ServiceConfig.class));
        b = service(instances.start(Map.of("app.name", "billing"), List.of(shared), ServiceConfig.class));
    }

    private static LockedService service(AnnotationConfigApplicationContext context) {
        LockedService proxy = context.getBean(LockedService.class);
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
    void excludesAcrossInstances(LockClient observer) throws Exception {
        int perThread = 50;
        List<Future<?>> calls = new ArrayList<>();
        for (LockedService instance : List.of(a, b)) {
            for (int t = 0; t < 3; t++) {
                calls.add(threads.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        instance.increment();
                    }
                }));
            }
        }
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        assertThat(shared.maxInside.get()).as("calls inside at once").isEqualTo(1);
        assertThat(shared.counter).isEqualTo(2 * 3 * perThread);
        assertThat(observer.getLock("counter").isLocked()).isFalse();
    }

    @Test
    void spelNamesLockPerArgument(LockClient observer) throws Exception {
        Future<Boolean> holder = threads.submit(() -> a.holdOrder(1, true));
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(observer.getLock("order:1").isLocked()).isTrue();

        assertThat(b.holdOrder(1, false)).as("same order on the other instance: skipped").isFalse();
        assertThat(b.holdOrder(2, false)).as("another order runs").isTrue();
        assertThat(shared.runs.get()).isEqualTo(2);

        shared.release.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(observer.getLock("order:1").isLocked()).isFalse();
    }

    @Test
    void namesResolvePlaceholdersBeansRootAndArguments() {
        assertThat(a.nameIsEvaluated(7)).isTrue();
    }

    @Test
    void aBlankEvaluatedNameIsRefusedNamingTheMethod() {
        assertThatThrownBy(() -> a.lockNamed(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LockedService.lockNamed(String)")
                .hasMessageContaining("#{#key}")
                .hasMessageContaining("blank");
    }

    @Test
    void busyThrowsNamingTheLockOrSkipsWithAnEmptyValue() throws Exception {
        Future<?> holder = threads.submit(() -> a.holdBusy());
        assertThat(shared.entered.await(10, TimeUnit.SECONDS)).isTrue();
        shared.runs.set(0);

        long start = System.nanoTime();
        assertThatThrownBy(() -> b.busyThrows())
                .isInstanceOf(LockBusyException.class)
                .hasMessageContaining("lock 'busy'")
                .hasMessageContaining("LockedService.busyThrows()")
                .satisfies(e -> assertThat(((LockBusyException) e).getLockName()).isEqualTo("busy"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(190));

        assertThat(b.busyOptional()).isEqualTo(Optional.empty());
        assertThat(b.busyInt()).isZero();
        assertThat(b.busyBoolean()).isFalse();
        b.busyVoid();
        assertThat(a.busyOptional()).as("another call on the holder's instance is busy too").isEmpty();
        assertThat(shared.runs.get()).as("no busy call ran its method").isZero();

        shared.release.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(b.busyThrows()).isEqualTo("ran");
        assertThat(b.busyOptional()).contains("ran");
    }

    @Test
    void anExceptionOfTheMethodReleasesTheLock(LockClient observer) {
        assertThatThrownBy(() -> a.fails()).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(observer.getLock("failing").isLocked()).isFalse();
    }

    @Test
    void theMinimumHoldKeepsTheLockAfterAFastMethodWithoutBlockingTheCaller(LockClient observer) {
        long start = System.nanoTime();
        a.quickJob();
        Duration call = Duration.ofNanos(System.nanoTime() - start);
        assertThat(call).as("the caller does not wait for the minimum hold").isLessThan(Duration.ofMillis(1000));
        assertThat(observer.getLock("quick").isLocked()).isTrue();
        assertThat(b.quickProbe()).as("the other instance is kept out").isFalse();
        assertThat(a.quickProbe()).as("so is the next call of the same instance").isFalse();

        Await.until(Duration.ofSeconds(5), () -> !observer.getLock("quick").isLocked(),
                "released after the minimum hold");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        assertThat(b.quickProbe()).isTrue();
    }

    /** ShedLock's habit, minHoldTime = leaseTime: held about that long, then released without a lost lease. */
    @Test
    void aMinimumHoldAsLongAsTheLeaseEndsWithoutALostLease(LockClient observer) throws InterruptedException {
        AnnotationConfigApplicationContext context = instances.start(Map.of("app.name", "billing"), List.of(shared),
                ServiceConfig.class);
        LockedService c = service(context);
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        context.getBean(LockClient.class).addLeaseLostListener(lost::add);
        long start = System.nanoTime();
        c.minimumHoldAsLongAsTheLease();
        assertThat(observer.getLock("shedlock-style").isLocked()).isTrue();
        Await.until(Duration.ofSeconds(5), () -> !observer.getLock("shedlock-style").isLocked(),
                "released at the end of the minimum hold");
        // the lease's margin (1% + 2 ms) and the release's 20 ms lead, and no more
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1000 - 32));
        Thread.sleep(1_000);
        assertThat(lost).as("no lost lease for a hold that ended as planned").isEmpty();
    }

    @Test
    void aFixedLeaseIsTheMaximumHold() {
        assertThat(a.leased()).isBetween(1L, 2000L);
    }

    @Test
    void nestedCallsOfTheSameLockRunInsideTheOuterHold() {
        assertThat(a.outer()).isEqualTo("inner ran");
    }

    @Test
    void aFencedMethodReadsItsTokenThroughItsCallsOwner() {
        Long[] tokens = a.fencedTokens("a");
        assertThat(tokens[0]).as("the call's token").isNotNull().isEqualTo(tokens[2]);
        assertThat(tokens[1]).as("the thread holds nothing itself").isNull();
        assertThat(LockedCalls.owner("fenced:a")).as("outside the call").isEmpty();
        assertThat(b.fencedTokens("a")[0]).as("the next hold's token is higher").isGreaterThan(tokens[0]);
    }

    @Test
    void readersShareAcrossInstancesAndExcludeWriters() throws Exception {
        Future<?> readerA = threads.submit(() -> a.read());
        Future<?> readerB = threads.submit(() -> b.read());
        Await.until(Duration.ofSeconds(10), () -> shared.inside.get() == 2, "both readers inside");
        assertThat(a.write()).as("a writer while readers hold").isFalse();
        shared.release.countDown();
        readerA.get(10, TimeUnit.SECONDS);
        readerB.get(10, TimeUnit.SECONDS);
        assertThat(b.write()).isTrue();
    }

    // ---- refused when the proxy is created ----

    public static class AsyncMethod {
        @DistributedLocked(name = "x")
        public CompletableFuture<String> later() {
            return CompletableFuture.completedFuture("x");
        }
    }

    public static class BadDuration {
        @DistributedLocked(name = "x", waitTime = "5 parsecs")
        public void run() {
        }
    }

    public static class MinAboveMax {
        @DistributedLocked(name = "x", leaseTime = "1s", minHoldTime = "5s")
        public void run() {
        }
    }

    public static class BadTemplate {
        @DistributedLocked(name = "x:#{#a +}")
        public void run(int a) {
        }
    }

    @Test
    void invalidMethodsFailTheStartUpNamingTheMethodAndTheProblem(RedisServer redis) {
        assertStartupFails(redis, AsyncMethod.class, "AsyncMethod.later()", "CompletableFuture");
        assertStartupFails(redis, BadDuration.class, "BadDuration.run()", "waitTime \"5 parsecs\" is not a duration");
        assertStartupFails(redis, MinAboveMax.class, "MinAboveMax.run()", "minHoldTime \"5s\" exceeds leaseTime");
        assertStartupFails(redis, BadTemplate.class, "BadTemplate.run(int)", "not a valid template");
    }

    static void assertStartupFails(RedisServer redis, Class<?> bean, String method, String problem) {
        assertThat(Instances.startupFailure(redis.uri(), bean))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedLocked on " + method)
                .hasMessageContaining(problem);
    }
}
