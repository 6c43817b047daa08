package io.dlock.spring.boot;

import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderTerm;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.spring.LeaderCalls;
import io.dlock.spring.LeaderElections;
import io.dlock.spring.LeaderOnly;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leader elections from {@code dlock.leader.elections.<name>.*} in two Spring Boot applications on one Redis: the
 * properties bind (and bad values fail start-up naming the property), and a {@code @Scheduled @LeaderOnly} job runs on
 * the leader only, then on the other application once the leader's context closed.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LeaderElectionsBootIT {
    static final Duration SETTLE = Duration.ofSeconds(10);

    /** One run of the job. */
    record Run(String instance, long epoch) {
    }

    /** Shared by both applications: the world the job acts on. */
    static final Queue<Run> runs = new ConcurrentLinkedQueue<>();
    static final AtomicInteger inside = new AtomicInteger();
    static final AtomicInteger overlaps = new AtomicInteger();

    static class Job {
        private final String instance;

        Job(String instance) {
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 20)
        @LeaderOnly("nightly-report")
        public void run() throws InterruptedException {
            // a run outside a term would be recorded with epoch -1
            long epoch = LeaderCalls.term("nightly-report").map(LeaderTerm::requireValid).orElse(-1L);
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            try {
                runs.add(new Run(instance, epoch));
                Thread.sleep(5);
            } finally {
                inside.decrementAndGet();
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class JobApp {
        @Bean
        Job job(Environment env) {
            return new Job(env.getProperty("instance"));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class EmptyApp {
    }

    private static ConfigurableApplicationContext start(Class<?> app, RedisServer redis, String... properties) {
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties("dlock.redis-uri=" + redis.uri())
                .properties(properties).run();
    }

    private static final String[] TIMING = {"dlock.leader.elections.nightly-report.lease=3s",
            "dlock.leader.elections.nightly-report.renew-deadline=2s",
            "dlock.leader.elections.nightly-report.retry-period=200ms",
            "dlock.leader.elections.nightly-report.stop-timeout=2s"};

    @Test
    void theScheduledJobRunsOnTheLeaderOnlyAndOnTheOtherAfterTheLeadersContextCloses(RedisServer redis) {
        runs.clear();
        try (ConfigurableApplicationContext a = start(JobApp.class, redis, with(TIMING, "instance=a"));
             ConfigurableApplicationContext b = start(JobApp.class, redis, with(TIMING, "instance=b"))) {
            assertThat(a.getBean(LeaderElections.class).settings("nightly-report")).contains(
                    LeaderElectionSettings.builder().lease(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2))
                            .retryPeriod(Duration.ofMillis(200)).stopTimeout(Duration.ofSeconds(2)).build());
            Await.until(SETTLE, () -> runs.size() >= 25, "runs of the job");
            List<Run> before = List.copyOf(runs);
            checkRuns(before);
            String leaderName = before.get(before.size() - 1).instance();

            (leaderName.equals("a") ? a : b).close();
            String otherName = leaderName.equals("a") ? "b" : "a";
            Await.until(SETTLE, () -> runs.stream().skip(before.size())
                    .filter(run -> run.instance().equals(otherName)).count() >= 5, "runs on the other application");
            List<Run> all = List.copyOf(runs);
            checkRuns(all);
            assertThat(all.get(all.size() - 1).instance()).isEqualTo(otherName);
        }
        assertThat(overlaps).as("runs at once across applications").hasValue(0);
    }

    /**
     * Every run in a term (a run outside one has epoch -1), epochs never going down, and each epoch's runs on one
     * application: the job ran on the leader only.
     */
    static void checkRuns(List<Run> runs) {
        Map<Long, String> instanceOfEpoch = new HashMap<>();
        long highest = 0;
        for (Run run : runs) {
            assertThat(run.epoch()).as("the epoch of %s, after epoch %d", run, highest).isGreaterThanOrEqualTo(highest);
            highest = run.epoch();
            assertThat(instanceOfEpoch.computeIfAbsent(run.epoch(), epoch -> run.instance()))
                    .as("the application of epoch %d", run.epoch()).isEqualTo(run.instance());
        }
    }

    @Test
    void anElectionNotStartedAutomaticallyWaitsForItsStart(RedisServer redis) {
        try (ConfigurableApplicationContext app = start(EmptyApp.class, redis,
                "dlock.leader.elections[role.billing].auto-start=false")) {
            LeaderElections elections = app.getBean(LeaderElections.class);
            assertThat(elections.names()).containsExactly("role.billing");
            assertThat(elections.settings("role.billing")).contains(LeaderElectionSettings.defaults());
            assertThat(elections.election("role.billing")).isEmpty();
            elections.start("role.billing");
            Await.until(SETTLE, () -> elections.election("role.billing").orElseThrow().isLeader(), "leader");
        }
    }

    @Test
    void badValuesFailTheStartUpNamingTheProperty(RedisServer redis) {
        assertThat(failure(redis, "dlock.leader.elections.billing.renew-deadline=20s"))
                .isEqualTo("dlock.leader.elections.billing.renew-deadline");
        assertThat(failure(redis, "dlock.leader.elections.billing.lease=2ms"))
                .isEqualTo("dlock.leader.elections.billing.lease");
        assertThat(failure(redis, "dlock.leader.elections.billing.stop-timeout=-1s"))
                .isEqualTo("dlock.leader.elections.billing.stop-timeout");
        assertThat(failure(redis, "dlock.leader.elections[role.billing].retry-period=10s"))
                .isEqualTo("dlock.leader.elections[role.billing].retry-period");
    }

    /** @return the name of the property the start-up failure names */
    private static String failure(RedisServer redis, String property) {
        Throwable[] failure = new Throwable[1];
        assertThatThrownBy(() -> start(EmptyApp.class, redis, property).close()).satisfies(e -> failure[0] = e);
        for (Throwable t = failure[0]; t != null; t = t.getCause()) {
            if (t instanceof InvalidConfigurationPropertyValueException invalid) {
                assertThat(invalid.getReason()).as(property).isNotBlank();
                return invalid.getName();
            }
        }
        throw new AssertionError(property + " failed otherwise", failure[0]);
    }

    private static String[] with(String[] properties, String more) {
        String[] all = java.util.Arrays.copyOf(properties, properties.length + 1);
        all[properties.length] = more;
        return all;
    }
}
