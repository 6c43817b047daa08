package io.dlock.spring;

import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ShedLock use case: a job scheduled on every instance at the same wall-clock tick runs on one of them per tick.
 * The second instance's clock is 150 ms late and the job takes far less, so only the minimum hold keeps the late
 * instance out of a tick the other one already ran (with {@code minHoldTime = "0"} this test fails).
 */
@ExtendWith(RedisExtension.class)
class ScheduledJobIT {

    /** Runs of the job per wall-clock second, across instances. */
    public static final class Ticks {
        final Map<Long, AtomicInteger> runsPerSecond = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> runsPerInstance = new ConcurrentHashMap<>();
    }

    public static class ReportJob {
        private final Ticks ticks;
        private final String instance = Integer.toHexString(System.identityHashCode(this));

        public ReportJob(Ticks ticks) {
            this.ticks = ticks;
        }

        @DistributedLocked(name = "jobs:report", whenBusy = WhenBusy.SKIP, minHoldTime = "500ms", leaseTime = "5s")
        public void report() {
            ticks.runsPerSecond.computeIfAbsent(System.currentTimeMillis() / 1000, s -> new AtomicInteger())
                    .incrementAndGet();
            ticks.runsPerInstance.computeIfAbsent(instance, i -> new AtomicInteger()).incrementAndGet();
        }
    }

    /**
     * Fires every second on the wall clock, then waits the instance's clock skew ({@code job.skewMs}) before it calls
     * the job: instances never fire at exactly the same moment.
     */
    public static class Ticker {
        private final ReportJob job;
        private final long skewMs;

        public Ticker(ReportJob job, @Value("${job.skewMs}") long skewMs) {
            this.job = job;
            this.skewMs = skewMs;
        }

        @Scheduled(cron = "* * * * * *")
        public void tick() throws InterruptedException {
            Thread.sleep(skewMs);
            job.report();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableDistributedLocking
    @Import({ReportJob.class, Ticker.class})
    public static class JobConfig {
    }

    /** Never fire during the test: only what the start-up says about them matters. */
    public static class Jobs {
        @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
        @DistributedLocked(name = "jobs:unheld", whenBusy = WhenBusy.SKIP)
        public void withoutMinimumHold() {
        }

        @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
        @DistributedLocked(name = "jobs:zero", whenBusy = WhenBusy.SKIP, minHoldTime = "0")
        public void explicitlyNoMinimumHold() {
        }

        @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
        @DistributedLocked(name = "jobs:held", whenBusy = WhenBusy.SKIP, minHoldTime = "500ms", leaseTime = "5s")
        public void withMinimumHold() {
        }

        @DistributedLocked(name = "jobs:called")
        public void notScheduled() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableDistributedLocking
    @Import(Jobs.class)
    public static class JobsConfig {
    }

    @Test
    void aScheduledMethodWithoutAMinimumHoldIsNamedWithTheFixWhenTheContextStarts(RedisServer redis) {
        String log = stderrDuring(() -> {
            try (Instances instances = new Instances(redis.uri())) {
                instances.start(List.of(), JobsConfig.class);
            }
        });
        String warning = "@DistributedLocked on Jobs.withoutMinimumHold(): a @Scheduled method without minHoldTime "
                + "may run twice per tick";
        assertThat(log).contains(warning).contains("Set minHoldTime above the largest difference between the "
                + "instances' clocks").contains("minHoldTime = \"0\" to hold the lock only while the method runs");
        assertThat(log.indexOf(warning)).as("logged once").isEqualTo(log.lastIndexOf(warning));
        assertThat(log).doesNotContain("explicitlyNoMinimumHold").doesNotContain("Jobs.withMinimumHold")
                .doesNotContain("notScheduled");
    }

    /** What slf4j-simple (which writes to the current {@code System.err}) and others wrote there during {@code run}. */
    private static String stderrDuring(Runnable run) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setErr(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }

    @Test
    void aScheduledJobRunsOncePerTickAcrossTwoInstances(RedisServer redis) {
        Ticks ticks = new Ticks();
        try (Instances instances = new Instances(redis.uri())) {
            instances.start(Map.of("job.skewMs", "0"), List.of(ticks), JobConfig.class);
            instances.start(Map.of("job.skewMs", "150"), List.of(ticks), JobConfig.class);
            Await.until(Duration.ofSeconds(10), () -> ticks.runsPerSecond.size() >= 4, "four ticks ran");
        }
        assertThat(ticks.runsPerSecond.values()).as("runs per tick: %s", ticks.runsPerSecond)
                .allSatisfy(runs -> assertThat(runs.get()).isEqualTo(1));
    }
}
