package io.dlock.spring.boot;

import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.spring.DistributedLocked;
import io.dlock.spring.WhenBusy;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application contexts on one Redis, as two instances of one service: {@code @DistributedLocked} excludes across
 * them, and a {@code @Scheduled} job guarded by it runs once per tick among them.
 */
@ExtendWith(RedisExtension.class)
class TwoInstancesIT {

    /** Shared by both instances of the test, as the outside world they both act on. */
    static final AtomicInteger inside = new AtomicInteger();
    static final AtomicInteger overlaps = new AtomicInteger();
    static final Map<Long, ConcurrentLinkedQueue<String>> runsPerTick = new ConcurrentHashMap<>();

    static class Service {
        private final String instance;

        Service(String instance) {
            this.instance = instance;
        }

        @DistributedLocked(name = "orders:#{#id}", waitTime = "10s")
        public String pay(int id) throws InterruptedException {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Thread.sleep(5);
            inside.decrementAndGet();
            return instance;
        }
    }

    static class NightlyJob {
        private final String instance;

        NightlyJob(String instance) {
            this.instance = instance;
        }

        @Scheduled(cron = "* * * * * *")
        @DistributedLocked(name = "jobs:tick", whenBusy = WhenBusy.SKIP, minHoldTime = "600ms")
        public void run() {
            runsPerTick.computeIfAbsent(System.currentTimeMillis() / 1000, t -> new ConcurrentLinkedQueue<>())
                    .add(instance);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PaymentsApp {
        @Bean
        Service service(org.springframework.core.env.Environment env) {
            return new Service(env.getProperty("instance"));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class SchedulerApp {
        @Bean
        NightlyJob nightlyJob(org.springframework.core.env.Environment env) {
            return new NightlyJob(env.getProperty("instance"));
        }
    }

    private static ConfigurableApplicationContext instance(Class<?> app, String name, RedisServer redis) {
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties("instance=" + name, "dlock.redis-uri=" + redis.uri()).run();
    }

    @Test
    void theAnnotationExcludesAcrossInstances(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext a = instance(PaymentsApp.class, "a", redis);
             ConfigurableApplicationContext b = instance(PaymentsApp.class, "b", redis)) {
            assertThat(a.getBean(LockClient.class).getId()).isNotEqualTo(b.getBean(LockClient.class).getId());
            List<Service> services = List.of(a.getBean(Service.class), b.getBean(Service.class));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> calls = new ArrayList<>();
                for (int i = 0; i < 40; i++) {
                    Service service = services.get(i % 2);
                    Callable<String> call = () -> {
                        start.await();
                        return service.pay(42);
                    };
                    calls.add(pool.submit(call));
                }
                start.countDown();
                List<String> ranOn = new ArrayList<>();
                for (Future<String> call : calls) {
                    ranOn.add(call.get(30, TimeUnit.SECONDS));
                }
                assertThat(overlaps).hasValue(0);
                assertThat(ranOn).contains("a", "b").hasSize(40);
            } finally {
                pool.shutdownNow();
            }
            assertThat(a.getBean(LockClient.class).inspect("orders:42").holders()).isEmpty();
        }
    }

    @Test
    void aScheduledJobRunsOncePerTickAcrossInstances(RedisServer redis) {
        runsPerTick.clear();
        try (ConfigurableApplicationContext a = instance(SchedulerApp.class, "a", redis);
             ConfigurableApplicationContext b = instance(SchedulerApp.class, "b", redis)) {
            Await.until(Duration.ofSeconds(15), () -> runsPerTick.size() >= 6, "five ticks with both instances up");
        }
        // the first tick may have come before the second instance started; every tick after it ran exactly once
        List<Long> ticks = runsPerTick.keySet().stream().sorted().toList();
        for (Long tick : ticks.subList(1, ticks.size())) {
            assertThat(runsPerTick.get(tick)).as("runs of tick " + tick).hasSize(1);
        }
    }
}
