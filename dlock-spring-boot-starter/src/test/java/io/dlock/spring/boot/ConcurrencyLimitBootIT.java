package io.dlock.spring.boot;

import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.spring.DistributedConcurrencyLimit;
import io.dlock.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's auto-configuration turns on {@code @DistributedConcurrencyLimit}: two Spring Boot applications on one
 * Redis run at most the declared number of calls at once between them; {@code dlock.annotation.enabled=false} turns it
 * off. The starter's metrics count the permits.
 */
@ExtendWith(RedisExtension.class)
class ConcurrencyLimitBootIT {

    /** Shared by both instances: the calls inside the method now, and the most seen at once. */
    static final AtomicInteger inside = new AtomicInteger();
    static final AtomicInteger maxInside = new AtomicInteger();

    static class PartnerClient {
        @DistributedConcurrencyLimit(name = "partner", permits = 2, waitTime = DistributedConcurrencyLimit.WAIT_FOREVER)
        public void call() throws InterruptedException {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            Thread.sleep(30);
            inside.decrementAndGet();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        PartnerClient partnerClient() {
            return new PartnerClient();
        }
    }

    private static ConfigurableApplicationContext instance(RedisServer redis, String... properties) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("dlock.redis-uri=" + redis.uri()).properties(properties).run();
    }

    @Test
    void atMostThePermitsRunAtOnceAcrossInstances(RedisServer redis) throws Exception {
        maxInside.set(0);
        try (ConfigurableApplicationContext a = instance(redis);
             ConfigurableApplicationContext b = instance(redis)) {
            List<PartnerClient> clients = List.of(a.getBean(PartnerClient.class), b.getBean(PartnerClient.class));
            ExecutorService pool = Executors.newFixedThreadPool(6);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 36; i++) {
                    PartnerClient client = clients.get(i % 2);
                    calls.add(pool.submit(() -> {
                        start.await();
                        client.call();
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> call : calls) {
                    call.get(30, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(maxInside).as("calls inside at once, 6 threads on 2 permits").hasValue(2);
            assertThat(a.getBean(LockClient.class).getLeasedSemaphore("partner").availablePermits()).isEqualTo(2);
            // the starter's metrics cover the permits: each instance took one per call it ran
            MeterRegistry meters = a.getBean(MeterRegistry.class);
            Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(meters.get("dlock.permit.acquire")
                    .tags("semaphore", "leased", "outcome", "acquired").timer().count()).isEqualTo(18));
            assertThat(meters.get("dlock.permits.held").gauge().value()).isZero();
        }
    }

    @Test
    void turnedOffWithTheAnnotationProperty(RedisServer redis) throws Exception {
        try (ConfigurableApplicationContext a = instance(redis, "dlock.annotation.enabled=false")) {
            a.getBean(PartnerClient.class).call();
            assertThat(a.getBean(LockClient.class).getLeasedSemaphore("partner").availablePermits())
                    .as("no semaphore created").isZero();
        }
    }
}
