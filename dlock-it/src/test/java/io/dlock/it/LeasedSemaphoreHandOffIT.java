package io.dlock.it;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.Permit;
import io.dlock.TuningSettings;
import io.dlock.it.support.PermitOverlapCounter;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release of a leased permit by one client hands its place to that client's acquisition waiting in line, in one
 * call ({@code pes_hand_on}): the released id leaves the permit table, the waiter's fresh id enters it with the
 * waiter's lease, the count stays and nothing is published. Checked: never more inside than permits, fewer than half
 * of the releases reach Redis as a release (a release to Redis is the one {@code INCRBY} of {@code pes_release}; a
 * hand-on writes no count), the handed permit is the waiter's own (its id, its lease; the released id is gone), every
 * permit back at the end, nothing with hand-offs off, and a Redisson waiter still served: every capped release whose
 * message reached it gives it a head start once this client kept the permits for its tenure (docs/architecture.md
 * §12), so 20 acquisitions of Redisson's each come within 5 s while four threads of this client churn.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = 3000)
@Timeout(value = 120, unit = SECONDS)
class LeasedSemaphoreHandOffIT {

    private String name;
    private RawRedis raw;
    private Workers workers;
    private final List<LockClient> ownClients = new ArrayList<>();

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:LeasedSemaphoreHandOffIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("leased-handoff-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        ownClients.forEach(LockClient::close);
        raw.close();
    }

    private String table() {
        return "{" + name + "}:timeout";
    }

    @Test
    void releasesHandTheirPlaceToThisClientsWaiters(LockClient client) {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(2);
        PermitOverlapCounter counter = new PermitOverlapCounter(2);
        long releasesToRedisBefore = raw.commandCalls("incrby");
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
        List<Future<Integer>> runs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            int thread = i;
            runs.add(workers.submit(Workers.until(end, () -> {
                // watchdog leases and fixed ones alike
                Optional<Permit> permit = thread % 2 == 0 ? semaphore.tryAcquire(Duration.ofSeconds(10))
                        : semaphore.tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(20));
                if (permit.isEmpty()) {
                    throw new AssertionError("no permit within 10 s");
                }
                counter.passThrough();
                assertThat(permit.get().release()).as("held with its lease running").isTrue();
                return null;
            })));
        }
        int releases = 0;
        for (Future<Integer> run : runs) {
            int n = Workers.get(run, Duration.ofSeconds(60));
            assertThat(n).as("every thread got permits").isPositive();
            releases += n;
        }
        long releasesToRedis = raw.commandCalls("incrby") - releasesToRedisBefore;
        assertThat(counter.maxInside()).isBetween(1, 2);
        assertThat(releases).isEqualTo(counter.entries());
        assertThat(releasesToRedis).as("releases sent to Redis, of %d", releases).isLessThan(releases / 2);
        assertThat(semaphore.availablePermits()).as("every permit back in Redis").isEqualTo(2);
        assertThat(raw.sync().zcard(table())).as("permits left in the table").isZero();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void theHandedPermitIsTheWaitersOwnUnderItsIdAndLease(LockClient client) throws Exception {
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        Permit held = semaphore.acquire();
        CompletableFuture<Optional<Permit>> waiting = semaphore.tryAcquireAsync(Duration.ofSeconds(10),
                Duration.ofSeconds(20));
        SemaphoreProbe.awaitWaiters(client, 1);
        Thread.sleep(50); // time for its second attempt, once subscribed, which puts it in line behind the holder
        long releasesToRedis = raw.commandCalls("incrby");
        assertThat(held.release()).isTrue();
        Permit handed = waiting.get(10, SECONDS).orElseThrow();
        assertThat(raw.commandCalls("incrby")).as("the release handed its place on").isEqualTo(releasesToRedis);
        assertThat(handed.id()).isNotEqualTo(held.id());
        assertThat(handed.isWatchdogRenewed()).isFalse();
        assertThat(handed.leaseValidFor()).isBetween(Duration.ofSeconds(15), Duration.ofSeconds(20));
        assertThat(raw.sync().pttl(name)).isEqualTo(-1L); // untouched: no TTL was set
        assertThat(raw.sync().zcard(table())).as("only the waiter's permit").isEqualTo(1);
        assertThat(semaphore.tryRelease(held.id())).as("the released id is gone").isFalse();
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(handed.release()).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void noReleaseIsHandedOnWithLocalHandOffsOff(RedisTopology topology) {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(topology.uri())
                .tuning(TuningSettings.builder().localHandoffs(0).build()).build());
        ownClients.add(client);
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        semaphore.trySetPermits(1);
        long releasesToRedisBefore = raw.commandCalls("incrby");
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
        List<Future<Integer>> runs = workers.submitEach(4, Workers.until(end, () -> {
            semaphore.acquire().release();
            return null;
        }));
        int releases = runs.stream().mapToInt(run -> Workers.get(run, Duration.ofSeconds(60))).sum();
        assertThat(raw.commandCalls("incrby") - releasesToRedisBefore).as("every release went to Redis")
                .isEqualTo(releases);
        assertThat(semaphore.availablePermits()).isEqualTo(1);
    }

    @Test
    void aRedissonWaiterGetsPermitsWhileThisClientHandsThemOn(RedisTopology topology, LockClient client)
            throws InterruptedException {
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        ours.trySetPermits(1);
        RedissonClient redisson = Redissons.connect(topology, 5000);
        try {
            RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
            PermitOverlapCounter counter = new PermitOverlapCounter(1);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Integer>> runs = workers.submitEach(4, Workers.untilStopped(stop, () -> {
                Permit permit = ours.acquire();
                counter.passThrough();
                return permit.release();
            }));
            for (int i = 0; i < 20; i++) {
                String id = theirs.tryAcquire(5, 10, SECONDS);
                assertThat(id).as("Redisson's acquisition %d within 5 s", i).isNotNull();
                counter.passThrough();
                theirs.release(id);
            }
            stop.set(true);
            for (Future<Integer> run : runs) {
                assertThat(Workers.get(run, Duration.ofSeconds(30))).isPositive();
            }
            assertThat(counter.maxInside()).isEqualTo(1);
            Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(ours.availablePermits()).isEqualTo(1));
        } finally {
            redisson.shutdown(0, 5, SECONDS);
        }
    }
}
