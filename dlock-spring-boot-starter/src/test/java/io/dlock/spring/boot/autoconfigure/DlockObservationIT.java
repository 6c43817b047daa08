package io.dlock.spring.boot.autoconfigure;

import io.dlock.DistributedSemaphore;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code dlock.metrics.observe-acquisitions} on a real Redis: every wait of the auto-configured client (a lock, a
 * permit, a latch await) is observed in the application's {@link ObservationRegistry} when it is true, none when it
 * is not set.
 */
@ExtendWith(RedisExtension.class)
class DlockObservationIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DlockAutoConfiguration.class,
                    DlockMetricsAutoConfiguration.class))
            .withUserConfiguration(Registries.class);

    @Configuration(proxyBeanMethods = false)
    static class Registries {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Stopped stopped() {
            return new Stopped();
        }

        @Bean
        ObservationRegistry observationRegistry(Stopped stopped) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(stopped);
            return registry;
        }
    }

    /** Records each stopped observation as {@code name kind outcome}. */
    static final class Stopped implements ObservationHandler<Observation.Context> {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public void onStop(Observation.Context context) {
            seen.add(context.getName() + " " + context.getLowCardinalityKeyValue("kind").getValue() + " "
                    + context.getLowCardinalityKeyValue("outcome").getValue());
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    private static void waitForEveryKind(LockClient client, String name) throws Exception {
        client.getLock(name).lock();
        client.getLock(name).unlock();
        DistributedSemaphore semaphore = client.getSemaphore(name + ":permits");
        semaphore.trySetPermits(1);
        semaphore.acquire();
        semaphore.release();
        assertThat(client.getCountDownLatch(name + ":latch").await(5, TimeUnit.SECONDS)).as("no key: open").isTrue();
    }

    @Test
    void everyWaitIsObservedWhenTheApplicationOptsIn(RedisServer redis) {
        runner.withPropertyValues("dlock.redis-uri=" + redis.uri(), "dlock.metrics.observe-acquisitions=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    waitForEveryKind(context.getBean(LockClient.class), "boot:observed");
                    Stopped stopped = context.getBean(Stopped.class);
                    Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(stopped.seen)
                            .containsExactlyInAnyOrder("dlock.acquire plain acquired",
                                    "dlock.permit.acquire semaphore acquired", "dlock.latch.await latch opened"));
                });
    }

    @Test
    void nothingIsObservedByDefault(RedisServer redis) {
        runner.withPropertyValues("dlock.redis-uri=" + redis.uri())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockClient client = context.getBean(LockClient.class);
                    waitForEveryKind(client, "boot:unobserved");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    // the meters count (bound by Boot's binder in an application; here by hand), nothing is observed
                    context.getBean(io.dlock.metrics.LockMetrics.class).bindTo(meters);
                    waitForEveryKind(client, "boot:unobserved:2");
                    Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(meters.get("dlock.latch.await")
                            .tags("outcome", "opened").timer().count()).isEqualTo(1));
                    assertThat(context.getBean(Stopped.class).seen).isEmpty();
                });
    }
}
