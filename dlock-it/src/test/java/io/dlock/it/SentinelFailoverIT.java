package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * dlock on Redis Sentinel (one master, two replicas, three Sentinels): connecting through the Sentinels, waking
 * waiters, {@code syncReplicas}, and a {@code SENTINEL FAILOVER} while four clients loop on a fenced lock.
 *
 * <p>What a failover does to locks, as measured here: Sentinel promotes a replica and the clients move to it within
 * moments (Lettuce follows {@code +switch-master}), but the old master keeps running as a master until the Sentinels
 * demote it some 8 s later, and a client still talking to it may take a lock there that the new master does not know
 * about. {@code syncReplicas} closes that hole (the old master's replicas have left it, so nothing it grants is
 * confirmed); fencing tokens stop a stale holder at the resource either way.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.SENTINEL)
@Timeout(value = 120, unit = SECONDS)
class SentinelFailoverIT {
    private static final long WATCHDOG_MS = 1500;
    private static final long RENEWAL_PERIOD_MS = WATCHDOG_MS / 3;
    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(450); // below a third of the watchdog timeout
    private static final Duration WORKER_BOUND = Duration.ofSeconds(15);
    private static final long WAKE_UP_MS = 2000;

    private final List<LockClient> clients = new ArrayList<>();
    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private Workers workers;
    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:SentinelFailoverIT:" + info.getTestMethod().orElseThrow().getName();
        workers = new Workers("sentinel-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        clients.forEach(LockClient::close);
    }

    private LockClient client(SentinelTopology redis, int syncReplicas) {
        LockClientConfig.Builder config = LockClientConfig.builder().redisUri(redis.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS)).commandTimeout(COMMAND_TIMEOUT);
        if (syncReplicas > 0) {
            config.syncReplicas(syncReplicas, Duration.ofMillis(500));
        }
        LockClient client = LockClient.create(config.build());
        client.addLeaseLostListener(lost::add);
        clients.add(client);
        return client;
    }

    @Test
    void locksThroughTheSentinelsAndConfirmsOnReplicas(SentinelTopology redis) throws Exception {
        assertThat(redis.uri()).startsWith("redis-sentinel://").endsWith("/?sentinelMasterId=mymaster");
        LockClient a = client(redis, 0);
        LockClient b = client(redis, 0);
        DistributedLock held = a.getLock(name);
        held.lock(60, SECONDS);
        Future<Long> waiter = workers.submit(() -> {
            DistributedLock lock = b.getLock(name);
            lock.lock();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        Leaks.awaitWaiters(b, 1);
        try (RawRedis raw = RawRedis.connect(redis.master().uri())) {
            Await.until(Leaks.SETTLE, () -> raw.subscribers(RawRedis.lockChannel(name)) == 1, "the waiter subscribes");
            long released = System.nanoTime();
            held.unlock();
            assertThat(Duration.ofNanos(Workers.get(waiter, Duration.ofSeconds(5)) - released).toMillis())
                    .as("ms until the waiter had the lock").isLessThan(WAKE_UP_MS);

            // both replicas confirm
            DistributedLock confirmed = client(redis, 2).getLock(name);
            assertThat(confirmed.tryLock()).isTrue();
            confirmed.unlock();

            // three cannot: the hold is given back, bounded calls fail, unbounded ones keep trying
            LockClient tooMany = client(redis, 3);
            DistributedLock unconfirmed = tooMany.getLock(name);
            assertThatThrownBy(unconfirmed::tryLock).isInstanceOf(LockException.class)
                    .hasMessageContaining(name).hasMessageContaining("of 3 replica(s)");
            assertThat(raw.exists(name)).as("the unconfirmed hold was given back").isFalse();
            assertThatThrownBy(() -> unconfirmed.tryLock(300, MILLISECONDS)).isInstanceOf(LockException.class);
            CountDownLatch started = new CountDownLatch(1);
            Thread[] thread = new Thread[1];
            Future<Throwable> patient = workers.submit(() -> {
                thread[0] = Thread.currentThread();
                started.countDown();
                try {
                    unconfirmed.lockInterruptibly();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            assertThat(started.await(5, SECONDS)).isTrue();
            Await.during(Duration.ofMillis(1500), () -> !patient.isDone(), "lockInterruptibly() should keep trying");
            thread[0].interrupt();
            assertThat(Workers.get(patient, Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
            Leaks.assertClientIdle(tooMany);
            assertThat(raw.exists(name)).isFalse();
        }
        assertThat(lost).isEmpty();
    }

    @Test
    void failoverWithoutSyncReplicas(SentinelTopology redis) throws Exception {
        failoverWhileFourWorkersLoop(redis, 0);
    }

    @Test
    void failoverWithSyncReplicas(SentinelTopology redis) throws Exception {
        failoverWhileFourWorkersLoop(redis, 1);
    }

    /** What the critical sections write to: accepts a token only if no greater one was accepted before. */
    private static final class FencingStorage {
        private final List<Long> accepted = new ArrayList<>();
        private long highest = Long.MIN_VALUE;
        private int rejected;

        synchronized boolean write(long token) {
            if (token < highest) {
                rejected++;
                return false;
            }
            highest = token;
            accepted.add(token);
            return true;
        }

        synchronized List<Long> accepted() {
            return List.copyOf(accepted);
        }

        synchronized int rejected() {
            return rejected;
        }
    }

    /**
     * Four clients (one thread each) loop on a fenced lock while the Sentinels fail over; besides them a watchdog
     * holder and a waiter behind a 60 s hold go through the failover. Checks: no worker hangs, tokens never repeat,
     * the storage never accepted a stale token, the watchdog holder either kept its hold or was told it lost it
     * within about a renewal period of its client's switch, and the waiter, re-subscribed on the new master, wakes at
     * once when the 60 s hold is released. Reports how many acquisitions overlapped another holder's.
     */
    private void failoverWhileFourWorkersLoop(SentinelTopology redis, int syncReplicas) throws Exception {
        LockClient holderClient = client(redis, syncReplicas);
        DistributedLock held = holderClient.getLock(name + ":held");
        held.lock();
        DistributedLock waited = holderClient.getLock(name + ":waited");
        waited.lock(60, SECONDS);
        LockClient waiterClient = client(redis, syncReplicas);
        Future<Long> waiter = workers.submit(() -> {
            DistributedLock lock = waiterClient.getLock(name + ":waited");
            lock.lock();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        Leaks.awaitWaiters(waiterClient, 1);

        FencingStorage storage = new FencingStorage();
        Set<Long> tokens = ConcurrentHashMap.newKeySet();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger acquisitions = new AtomicInteger();
        AtomicInteger overlapping = new AtomicInteger();
        AtomicInteger repeatedTokens = new AtomicInteger();
        AtomicInteger lostAtUnlock = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<Integer>> loops = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            FencedLock lock = client(redis, syncReplicas).getFencedLock(name);
            loops.add(workers.submit(() -> {
                int mine = 0;
                while (!stop.get()) {
                    long token = lock.lockAndGetToken();
                    try {
                        if (inside.incrementAndGet() > 1) {
                            overlapping.incrementAndGet();
                        }
                        acquisitions.incrementAndGet();
                        mine++;
                        if (!tokens.add(token)) {
                            repeatedTokens.incrementAndGet();
                        }
                        storage.write(token);
                        Thread.sleep(2);
                        storage.write(token);
                        inside.decrementAndGet();
                    } finally {
                        try {
                            lock.unlock();
                        } catch (IllegalMonitorStateException gone) {
                            lostAtUnlock.incrementAndGet();
                        }
                    }
                }
                return mine;
            }));
        }
        Await.until(Duration.ofSeconds(10), () -> acquisitions.get() >= 20, "the workers get going");

        int before = acquisitions.get();
        long failoverStarted = System.nanoTime();
        redis.failover();
        long switched = System.nanoTime();
        java.time.Instant switchedAt = java.time.Instant.now();
        redis.awaitHealthy();
        long healthy = System.nanoTime();
        int during = acquisitions.get() - before;
        Await.until(Duration.ofSeconds(20), () -> acquisitions.get() >= before + during + 20,
                () -> "the workers go on after the failover: " + acquisitions.get());
        stop.set(true);
        int total = 0;
        for (Future<Integer> loop : loops) {
            total += Workers.get(loop, WORKER_BOUND);
        }
        assertThat(total).isEqualTo(acquisitions.get());

        // the watchdog holder kept its hold, or was told within about a renewal period of its client's switch
        boolean survived;
        try (RawRedis raw = RawRedis.connect(redis.master().uri())) {
            survived = raw.sync().hexists(name + ":held",
                    RawRedis.field(holderClient.getId(), Thread.currentThread().getId()));
        }
        if (survived) {
            Await.during(Duration.ofMillis(2 * RENEWAL_PERIOD_MS), () -> lost.stream()
                    .noneMatch(e -> e.lockName().equals(name + ":held")), "a surviving hold was reported lost");
            assertThat(held.leaseValidFor()).isPositive();
            held.unlock();
        } else {
            Await.until(Duration.ofMillis(WATCHDOG_MS), () -> !lost.stream()
                    .filter(e -> e.lockName().equals(name + ":held")).toList().isEmpty(),
                    "the holder of a hold lost in the failover must be told");
            // told at the first renewal on the new master; the client moves there at most ~5 s after the switch
            LeaseLostEvent event = lost.stream().filter(e -> e.lockName().equals(name + ":held")).findFirst()
                    .orElseThrow();
            assertThat(Duration.between(switchedAt, event.at())).as("from the switch to the report")
                    .isLessThan(Duration.ofMillis(5000 + 2 * RENEWAL_PERIOD_MS + 1000));
            assertThatThrownBy(held::unlock).isInstanceOf(IllegalMonitorStateException.class);
        }

        // the waiter re-subscribed on the new master: the release wakes it at once
        long released = System.nanoTime();
        boolean waitedSurvived = true;
        try {
            waited.unlock();
        } catch (IllegalMonitorStateException gone) {
            waitedSurvived = false;
        }
        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(10));
        if (waitedSurvived) {
            assertThat(Duration.ofNanos(acquiredAt - released).toMillis()).as("ms until the waiter had the lock")
                    .isLessThan(WAKE_UP_MS);
        }

        // fencing: every acquisition took its own token, and the storage never accepted one below an earlier one
        assertThat(repeatedTokens).as("tokens handed out twice").hasValue(0);
        List<Long> accepted = storage.accepted();
        for (int i = 1; i < accepted.size(); i++) {
            assertThat(accepted.get(i)).as("accepted token %d", i).isGreaterThanOrEqualTo(accepted.get(i - 1));
        }
        System.out.printf("sentinel failover, syncReplicas=%d: %d acquisitions (%d between the failover and the "
                        + "deployment being healthy, %.1f s); %d overlapped another holder in time; %d writes with "
                        + "a stale token rejected by the fencing storage; %d holds gone at unlock; %d leases "
                        + "reported lost; watchdog hold %s; waited hold %s; switch after %d ms%n",
                syncReplicas, total, during, (healthy - failoverStarted) / 1e9, overlapping.get(), storage.rejected(),
                lostAtUnlock.get(), lost.size(), survived ? "kept" : "lost and reported " + lost.stream()
                        .filter(e -> e.lockName().equals(name + ":held"))
                        .map(e -> e.reason() + " " + Duration.between(switchedAt, e.at()).toMillis()
                                + " ms after the switch").toList(),
                waitedSurvived ? "kept" : "lost", (switched - failoverStarted) / 1_000_000);
    }
}
