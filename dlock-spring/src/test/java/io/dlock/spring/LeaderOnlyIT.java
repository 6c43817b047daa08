package io.dlock.spring;

import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LeaderOnly} in two application contexts on two clients, as two instances of one service: a
 * {@code @Scheduled} method runs on the leader only, and on the other instance once the leader's context closed; the
 * term and its epoch reach the method; the term's end interrupts a call in progress, and the lock is released (so the
 * other instance is elected) only after that call returned.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LeaderOnlyIT {
    static final String ELECTION = "jobs";
    static final LeaderElectionSettings FAST = LeaderElectionSettings.builder()
            .lease(Duration.ofSeconds(3)).renewDeadline(Duration.ofSeconds(2)).retryPeriod(Duration.ofMillis(200))
            .stopTimeout(Duration.ofSeconds(3)).build();
    static final Duration SETTLE = Duration.ofSeconds(10);

    /** One run of the scheduled job. */
    record Run(String instance, long epoch) {
    }

    /** What the instances share: the outside world the job acts on. */
    public static final class Runs {
        final Queue<Run> runs = new ConcurrentLinkedQueue<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
    }

    public static class TickJob {
        private final Runs runs;
        private final String instance;

        public TickJob(Runs runs, @Value("${instance}") String instance) {
            this.runs = runs;
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 20)
        @LeaderOnly(ELECTION)
        public void tick() throws InterruptedException {
            // a run outside a term is recorded too (epoch -1), so that the test sees it
            long epoch = LeaderCalls.term(ELECTION).map(LeaderTerm::requireValid).orElse(-1L);
            if (runs.inside.incrementAndGet() > 1) {
                runs.overlaps.incrementAndGet();
            }
            try {
                runs.runs.add(new Run(instance, epoch));
                Thread.sleep(5);
            } finally {
                runs.inside.decrementAndGet();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableDistributedLocking
    @Import(TickJob.class)
    public static class TickConfig {
        @Bean
        LeaderElections leaderElections(LockClient client) {
            return new LeaderElections(client).add(ELECTION, FAST);
        }
    }

    /** Called by the test. */
    public static class CalledJob {
        final AtomicLong leftNanos = new AtomicLong();
        final CountDownLatch blocking = new CountDownLatch(1);

        // through methods: the test holds the bean's proxy, whose own fields are not the target's
        public CountDownLatch blocking() {
            return blocking;
        }

        public long leftNanos() {
            return leftNanos.get();
        }

        @LeaderOnly("${election}")
        public String settle(LeaderTerm term, @LeaderEpoch long epoch, String batch) {
            assertThat(LeaderCalls.term(ELECTION)).containsSame(term);
            return batch + "@" + epoch + "/" + term.epoch();
        }

        @LeaderOnly(ELECTION)
        public int count() {
            return 7;
        }

        @LeaderOnly(ELECTION)
        public Optional<String> maybe() {
            return Optional.of("led");
        }

        /** Waits until interrupted, then takes 300 ms more to stop (ignoring interrupts), as a flush would. */
        @LeaderOnly(ELECTION)
        public String block() {
            blocking.countDown();
            try {
                Thread.sleep(60_000);
                return "not interrupted";
            } catch (InterruptedException e) {
                long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
                while (System.nanoTime() < until) {
                    LockSupport.parkNanos(until - System.nanoTime());
                }
                leftNanos.set(System.nanoTime());
                Thread.currentThread().interrupt();   // as a well-behaved method does; the gate clears it after
                return "interrupted";
            }
        }
    }

    /** Stops its own election from inside one of its calls. */
    public static class StoppingJob {
        @org.springframework.beans.factory.annotation.Autowired
        LeaderElections elections;

        @LeaderOnly(ELECTION)
        public long stopFromInside() {
            long start = System.nanoTime();
            elections.stop(ELECTION);
            return System.nanoTime() - start;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import({CalledJob.class, StoppingJob.class})
    public static class CalledConfig {
        @Bean
        LeaderElections leaderElections(LockClient client) {
            return new LeaderElections(client).add(ELECTION, FAST);
        }
    }

    @Test
    void theScheduledMethodRunsOnTheLeaderOnlyAndOnTheOtherAfterTheLeadersContextCloses(RedisServer redis) {
        Runs runs = new Runs();
        try (Instances instances = new Instances(redis.uri())) {
            AnnotationConfigApplicationContext a = instances.start(Map.of("instance", "a"), List.of(runs),
                    TickConfig.class);
            AnnotationConfigApplicationContext b = instances.start(Map.of("instance", "b"), List.of(runs),
                    TickConfig.class);
            Await.until(SETTLE, () -> runs.runs.size() >= 25, "runs of the job");
            List<Run> before = List.copyOf(runs.runs);
            checkRuns(before);
            String leaderName = before.get(before.size() - 1).instance();

            (leaderName.equals("a") ? a : b).close();
            String otherName = leaderName.equals("a") ? "b" : "a";
            Await.until(SETTLE, () -> runs.runs.stream().skip(before.size())
                    .filter(run -> run.instance().equals(otherName)).count() >= 5, "runs on the other instance");
            List<Run> all = List.copyOf(runs.runs);
            checkRuns(all);
            assertThat(all.get(all.size() - 1).instance()).isEqualTo(otherName);
        }
        assertThat(runs.overlaps).as("runs at once across instances").hasValue(0);
    }

    /**
     * Every run in a term (a run outside one has epoch -1), epochs never going down, and each epoch's runs on one
     * instance: the job ran on the leader only.
     */
    static void checkRuns(List<Run> runs) {
        Map<Long, String> instanceOfEpoch = new HashMap<>();
        long highest = 0;
        for (Run run : runs) {
            assertThat(run.epoch()).as("the epoch of %s, after epoch %d", run, highest).isGreaterThanOrEqualTo(highest);
            highest = run.epoch();
            assertThat(instanceOfEpoch.computeIfAbsent(run.epoch(), epoch -> run.instance()))
                    .as("the instance of epoch %d", run.epoch()).isEqualTo(run.instance());
        }
    }

    @Test
    void theMethodReceivesTheTermAndItsEpochAndIsSkippedWhenNotLeading(RedisServer redis) {
        try (Instances instances = new Instances(redis.uri())) {
            Map<String, Object> properties = Map.of("election", ELECTION);
            AnnotationConfigApplicationContext a = instances.start(properties, List.of(), CalledConfig.class);
            AnnotationConfigApplicationContext b = instances.start(properties, List.of(), CalledConfig.class);
            Await.until(SETTLE, () -> leading(a) || leading(b), "a leader");
            AnnotationConfigApplicationContext leader = leading(a) ? a : b;
            AnnotationConfigApplicationContext other = leader == a ? b : a;
            long epoch = election(leader).currentTerm().orElseThrow().epoch();

            CalledJob led = leader.getBean(CalledJob.class);
            assertThat(led.settle(null, 0, "batch-1")).isEqualTo("batch-1@" + epoch + "/" + epoch);
            assertThat(led.count()).isEqualTo(7);
            assertThat(led.maybe()).contains("led");
            assertThat(LeaderCalls.term(ELECTION)).as("outside a call").isEmpty();

            CalledJob skipped = other.getBean(CalledJob.class);
            assertThat(skipped.settle(null, 0, "batch-1")).isNull();
            assertThat(skipped.count()).isZero();
            assertThat(skipped.maybe()).isEmpty();
        }
    }

    @Test
    void theTermsEndInterruptsTheCallAndTheLockOutlivesIt(RedisServer redis) throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (Instances instances = new Instances(redis.uri())) {
            Map<String, Object> properties = Map.of("election", ELECTION);
            AnnotationConfigApplicationContext a = instances.start(properties, List.of(), CalledConfig.class);
            Await.until(SETTLE, () -> leading(a), "a leads alone");
            AnnotationConfigApplicationContext b = instances.start(properties, List.of(), CalledConfig.class);
            AtomicLong electedNanos = new AtomicLong();
            election(b).addListener(new LeaderListener() {
                @Override
                public void elected(LeaderTerm term) {
                    electedNanos.compareAndSet(0, System.nanoTime());
                }
            });

            CalledJob job = a.getBean(CalledJob.class);
            Future<String> call = caller.submit(() -> {
                String result = job.block();
                return result + (Thread.currentThread().isInterrupted() ? ", flag still set" : "");
            });
            assertThat(job.blocking().await(10, SECONDS)).isTrue();
            election(a).resign();
            assertThat(job.leftNanos()).as("the call returned before resign() released the lock").isPositive();
            assertThat(call.get(10, SECONDS)).isEqualTo("interrupted");
            Await.until(SETTLE, () -> electedNanos.get() != 0, "the other instance elected");
            assertThat(electedNanos.get() - job.leftNanos()).as("elected after the call returned (ns)")
                    .isPositive();
        } finally {
            caller.shutdownNow();
        }
    }

    /**
     * {@code LeaderElections.stop(name)} from inside a {@code @LeaderOnly} call of that election: waiting for the
     * stop would wait for the call itself (the stop drains the term's calls) until the stop timeout (3 s here); it
     * starts the stop and returns at once, and the election stops and releases its lock.
     */
    @Test
    void stoppingTheElectionFromInsideOneOfItsCallsReturnsAtOnceAndStopsIt(RedisServer redis) {
        try (Instances instances = new Instances(redis.uri())) {
            AnnotationConfigApplicationContext a = instances.start(Map.of("election", ELECTION), List.of(),
                    CalledConfig.class);
            Await.until(SETTLE, () -> leading(a), "a leads");
            long tookNanos = a.getBean(StoppingJob.class).stopFromInside();
            assertThat(Duration.ofNanos(tookNanos)).as("stop() from inside the call").isLessThan(Duration.ofSeconds(1));
            LeaderElections elections = a.getBean(LeaderElections.class);
            Await.until(SETTLE, () -> elections.election(ELECTION).isEmpty(), "the election stopped");
            try (io.dlock.LockClient reader = io.dlock.LockClient.connect(redis.uri())) {
                Await.until(SETTLE, () -> !reader.getFencedLock(ELECTION).isLocked(), "its lock released");
            }
        }
    }

    private static boolean leading(AnnotationConfigApplicationContext context) {
        return election(context).isLeader();
    }

    private static LeaderElection election(AnnotationConfigApplicationContext context) {
        return context.getBean(LeaderElections.class).election(ELECTION).orElseThrow();
    }
}
