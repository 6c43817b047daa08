package io.dlock.it;

import io.dlock.DistributedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.TuningSettings;
import io.dlock.it.support.PermitOverlapCounter;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A release of a plain semaphore by one client hands its permits to that client's acquisitions waiting in line,
 * without Redis (the count stays taken, nothing is published), at most {@link TuningSettings#DEFAULT_LOCAL_HANDOFFS}
 * releases in a row: never more inside than permits, every permit accounted for when waiters give up or the client
 * closes in the middle of a hand-off, and other clients (Redisson) still get permits.
 *
 * <p>Releases sent to Redis are counted on the server ({@code INFO commandstats}: a release is one {@code INCRBY} run
 * by its script), so "handed on instead of released" is checked where it happens.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class SemaphoreHandOffIT {

    private String name;
    private RawRedis raw;
    private Workers workers;
    private final List<LockClient> ownClients = new ArrayList<>();

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:SemaphoreHandOffIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("handoff-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        ownClients.forEach(LockClient::close);
        raw.close();
    }

    @Test
    void releasesHandPermitsToThisClientsWaitersWithoutAskingRedis(LockClient client) {
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(2);
        PermitOverlapCounter counter = new PermitOverlapCounter(2);
        long releasesToRedisBefore = raw.commandCalls("incrby");
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
        List<Future<Integer>> runs = workers.submitEach(8, Workers.until(end, () -> {
            if (!semaphore.tryAcquire(1, Duration.ofSeconds(10))) {
                throw new AssertionError("no permit within 10 s");
            }
            counter.passThrough();
            semaphore.release();
            return null;
        }));
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
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void noReleaseIsHandedOnWithLocalHandOffsOff(RedisTopology topology) {
        LockClient client = ownClient(topology, 0);
        DistributedSemaphore semaphore = client.getSemaphore(name);
        semaphore.trySetPermits(1);
        long releasesToRedisBefore = raw.commandCalls("incrby");
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
        List<Future<Integer>> runs = workers.submitEach(4, Workers.until(end, () -> {
            semaphore.acquire();
            semaphore.release();
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
        DistributedSemaphore ours = client.getSemaphore(name);
        ours.trySetPermits(1);
        RedissonClient redisson = Redissons.connect(topology, 5000);
        try {
            RSemaphore theirs = redisson.getSemaphore(name);
            PermitOverlapCounter counter = new PermitOverlapCounter(1);
            AtomicBoolean stop = new AtomicBoolean();
            List<Future<Integer>> runs = workers.submitEach(4, Workers.untilStopped(stop, () -> {
                ours.acquire();
                counter.passThrough();
                ours.release();
                return null;
            }));
            for (int i = 0; i < 5; i++) {
                assertThat(theirs.tryAcquire(1, 5, SECONDS)).as("Redisson's acquisition %d within 5 s", i).isTrue();
                counter.passThrough();
                theirs.release();
            }
            stop.set(true);
            for (Future<Integer> run : runs) {
                assertThat(Workers.get(run, Duration.ofSeconds(30))).isPositive();
            }
            assertThat(counter.maxInside()).isEqualTo(1);
            assertThat(ours.availablePermits()).isEqualTo(1);
        } finally {
            redisson.shutdown(0, 5, SECONDS);
        }
    }

    /**
     * The client closes just as a release hands the permit on to waiters in line: whichever waiter got it before the
     * close keeps it (its caller was told), and the permit of a waiter the close ended first goes back to Redis. Over
     * rounds at slightly different moments, the count in Redis is always exactly the permit minus the grants callers
     * were told of.
     */
    @Test
    void closingTheClientInTheMiddleOfAHandOffLosesNoPermit(RedisTopology topology, LockClient other)
            throws Exception {
        DistributedSemaphore observer = other.getSemaphore(name);
        observer.trySetPermits(1);
        int handedOn = 0;
        for (int round = 0; round < 12; round++) {
            LockClient closing = ownClient(topology, TuningSettings.DEFAULT_LOCAL_HANDOFFS);
            DistributedSemaphore semaphore = closing.getSemaphore(name);
            semaphore.acquire();
            List<CompletableFuture<Void>> waiting = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiting.add(semaphore.acquireAsync());
            }
            SemaphoreProbe.awaitWaiters(closing, 3);
            Thread.sleep(30); // time for their second attempt, which puts them in line behind the holder
            long releasesToRedis = raw.commandCalls("incrby");
            semaphore.release();
            if (raw.commandCalls("incrby") == releasesToRedis) {
                handedOn++;
            }
            if (round % 3 != 0) {
                Thread.sleep(round % 3);
            }
            closing.close();
            int told = 0;
            for (CompletableFuture<Void> future : waiting) {
                try {
                    future.get(10, SECONDS);
                    told++;
                } catch (java.util.concurrent.ExecutionException e) {
                    // ended by the close
                }
            }
            assertThat(told).as("round %d: at most one waiter told it has the permit", round).isLessThanOrEqualTo(1);
            int expected = 1 - told;
            Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(observer.availablePermits())
                    .as("permits in Redis after the close").isEqualTo(expected));
            if (told == 1) {
                observer.release(); // the permit its caller holds, given back for the next round
            }
        }
        assertThat(observer.availablePermits()).isEqualTo(1);
        assertThat(handedOn).as("rounds whose release handed the permit on (no INCRBY), of 12").isPositive();
    }

    private LockClient ownClient(RedisTopology topology, int localHandoffs) {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(topology.uri())
                .tuning(TuningSettings.builder().localHandoffs(localHandoffs).build()).build());
        ownClients.add(client);
        return client;
    }
}
