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
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * about. {@code syncReplicas} on every replica closes that hole: once a replica left the old master to be promoted,
 * the old master cannot have a grant confirmed by all its replicas, so it grants nothing (asserted below: no two
 * critical sections overlap). A smaller count does not: the replica that was not promoted follows the old master until
 * the Sentinels reconfigure it, and may confirm a grant it then loses when it resynchronises from the new master.
 * Fencing tokens stop a stale holder at the resource either way (asserted: the storage rejects only writes of a
 * section that overlapped another).
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
    /** How long WAIT may take: well below the command timeout, as LockClientConfig.syncReplicas advises. */
    private static final Duration SYNC_TIMEOUT = Duration.ofMillis(200);

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
            config.syncReplicas(syncReplicas, SYNC_TIMEOUT);
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
            Await.during(Duration.ofMillis(1500), () -> !patient.isDone(),
                    () -> "lockInterruptibly() should keep trying; it ended with " + outcomeOf(patient) + ", hash "
                            + raw.hgetall(name));
            thread[0].interrupt();
            assertThat(Workers.get(patient, Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
            Leaks.assertClientIdle(tooMany);
            assertThat(raw.exists(name)).isFalse();
        }
        assertThat(lost).isEmpty();
    }

    /** What a finished task returned or threw, for a failure message. */
    private static String outcomeOf(Future<?> task) {
        try {
            return "result " + task.get(0, SECONDS);
        } catch (Exception e) {
            return String.valueOf(e.getCause() != null ? e.getCause() : e);
        }
    }

    @Test
    void failoverWithoutSyncReplicas(SentinelTopology redis) throws Exception {
        failoverWhileFourWorkersLoop(redis, 0);
    }

    /** {@code syncReplicas} on every replica (two): the old master cannot confirm anything once a replica left it. */
    @Test
    void failoverWithSyncReplicasOnEveryReplica(SentinelTopology redis) throws Exception {
        assertThat(redis.replicas()).hasSize(2);
        failoverWhileFourWorkersLoop(redis, redis.replicas().size());
    }

    /** One critical section of a worker: its token and when (System.nanoTime) it called, held and let go. */
    private record Section(int id, long token, long called, long acquired, long released) {
    }

    /** One write offered to the fencing storage, and whether it was accepted. */
    private record Offer(int section, long token, boolean accepted) {
    }

    /**
     * What the critical sections write to: accepts a token only if no greater one was accepted before, and records
     * every token offered (accepted or not) in the order offered.
     */
    private static final class FencingStorage {
        private final List<Offer> offers = new ArrayList<>();
        private long highest = Long.MIN_VALUE;

        synchronized boolean write(int section, long token) {
            boolean accepted = token >= highest;
            if (accepted) {
                highest = token;
            }
            offers.add(new Offer(section, token, accepted));
            return accepted;
        }

        synchronized List<Offer> offers() {
            return List.copyOf(offers);
        }
    }

    /**
     * Four clients (one thread each) loop on a fenced lock while the Sentinels fail over; besides them a watchdog
     * holder and a waiter behind a 60 s hold go through the failover. Every critical section is recorded (token, and
     * when it called, held and let go) and every token offered to the fencing storage. Checks:
     * <ul>
     *   <li>no worker hangs, tokens never repeat, and a token is greater than every token returned before its
     *       acquisition was called (the {@link FencedLock} guarantee: the servers share one clock here);</li>
     *   <li>outside the failover (before it started, or a lease length after the deployment was healthy again) no
     *       two critical sections overlap in time, no unlock finds its hold gone, and the storage rejects nothing;
     *       during it, a rejected token comes from a section that overlapped another (fencing stops exactly the
     *       split-brain holder);</li>
     *   <li>with {@code syncReplicas} on every replica: no section overlaps another and the storage rejects
     *       nothing, at any time (the old master cannot confirm a grant once a replica left it);</li>
     *   <li>the watchdog holder either kept its hold or was told it lost it within about a renewal period of its
     *       client's switch, and the waiter, re-subscribed on the new master, wakes at once when the 60 s hold is
     *       released.</li>
     * </ul>
     * Without {@code syncReplicas} overlaps may happen during the failover; they are counted and reported.
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
        Queue<Section> sections = new ConcurrentLinkedQueue<>();
        Queue<Long> goneAtUnlock = new ConcurrentLinkedQueue<>(); // when (nanoTime) holds found gone at unlock were taken
        AtomicInteger ids = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Future<Integer>> loops = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            FencedLock lock = client(redis, syncReplicas).getFencedLock(name);
            loops.add(workers.submit(() -> {
                int mine = 0;
                while (!stop.get()) {
                    long called = System.nanoTime();
                    long token = lock.lockAndGetToken();
                    long acquired = System.nanoTime();
                    int id = ids.incrementAndGet();
                    try {
                        mine++;
                        storage.write(id, token);
                        Thread.sleep(2);
                        storage.write(id, token);
                    } finally {
                        sections.add(new Section(id, token, called, acquired, System.nanoTime()));
                        try {
                            lock.unlock();
                        } catch (IllegalMonitorStateException gone) {
                            goneAtUnlock.add(acquired);
                        }
                    }
                }
                return mine;
            }));
        }
        Await.until(Duration.ofSeconds(10), () -> sections.size() >= 20, "the workers get going");

        int before = sections.size();
        long failoverStarted = System.nanoTime();
        redis.failover();
        long switched = System.nanoTime();
        java.time.Instant switchedAt = java.time.Instant.now();
        redis.awaitHealthy();
        long healthy = System.nanoTime();
        int during = sections.size() - before;
        Await.until(Duration.ofSeconds(20), () -> sections.size() >= before + during + 20,
                () -> "the workers go on after the failover: " + sections.size());
        stop.set(true);
        int total = 0;
        for (Future<Integer> loop : loops) {
            total += Workers.get(loop, WORKER_BOUND);
        }
        assertThat(total).isEqualTo(sections.size());

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

        // a hold may be at stake from the failover's start until a lease length after the deployment is healthy
        long windowEnd = healthy + Duration.ofMillis(WATCHDOG_MS).toNanos();
        List<Section> all = new ArrayList<>(sections);
        assertTokensIncreaseInCallOrder(all);
        Set<Integer> overlapped = overlapping(all);
        List<Section> overlappedOutside = all.stream().filter(x -> overlapped.contains(x.id()))
                .filter(x -> x.acquired() < failoverStarted || x.acquired() > windowEnd).toList();
        assertThat(overlappedOutside).as("critical sections overlapping another outside the failover").isEmpty();
        List<Offer> offers = storage.offers();
        assertThat(offers).as("two writes offered per section").hasSize(2 * all.size());
        List<Offer> rejected = offers.stream().filter(o -> !o.accepted()).toList();
        assertThat(rejected).as("stale tokens rejected although their section overlapped no other")
                .allMatch(o -> overlapped.contains(o.section()));
        List<Long> goneOutside = goneAtUnlock.stream().filter(t -> t < failoverStarted || t > windowEnd).toList();
        assertThat(goneOutside).as("holds taken outside the failover and gone at unlock").isEmpty();
        if (syncReplicas >= redis.replicas().size()) {
            assertThat(overlapped).as("critical sections overlapping another with syncReplicas on every replica")
                    .isEmpty();
            assertThat(rejected).as("stale tokens offered with syncReplicas on every replica").isEmpty();
        }
        System.out.printf("sentinel failover, syncReplicas=%d: %d acquisitions (%d between the failover and the "
                        + "deployment being healthy, %.1f s); %d overlapped another holder in time; %d writes with "
                        + "a stale token rejected by the fencing storage; %d holds gone at unlock; %d leases "
                        + "reported lost; watchdog hold %s; waited hold %s; switch after %d ms%n",
                syncReplicas, total, during, (healthy - failoverStarted) / 1e9, overlapped.size(), rejected.size(),
                goneAtUnlock.size(), lost.size(), survived ? "kept" : "lost and reported " + lost.stream()
                        .filter(e -> e.lockName().equals(name + ":held"))
                        .map(e -> e.reason() + " " + Duration.between(switchedAt, e.at()).toMillis()
                                + " ms after the switch").toList(),
                waitedSurvived ? "kept" : "lost", (switched - failoverStarted) / 1_000_000);
    }

    /**
     * Tokens are unique, and each is greater than every token whose acquisition had returned before it was called.
     */
    private static void assertTokensIncreaseInCallOrder(List<Section> all) {
        assertThat(all.stream().map(Section::token).distinct().count()).as("distinct tokens").isEqualTo(all.size());
        List<Section> byReturn = all.stream().sorted(Comparator.comparingLong(Section::acquired)).toList();
        List<Section> byCall = all.stream().sorted(Comparator.comparingLong(Section::called)).toList();
        int next = 0;
        Section highest = null;
        List<String> violations = new ArrayList<>();
        for (Section b : byCall) {
            while (next < byReturn.size() && byReturn.get(next).acquired() < b.called()) {
                Section a = byReturn.get(next++);
                if (highest == null || a.token() > highest.token()) {
                    highest = a;
                }
            }
            if (highest != null && b.token() <= highest.token()) {
                violations.add("section " + b.id() + " got " + b.token() + " after section " + highest.id()
                        + " had got " + highest.token());
            }
        }
        assertThat(violations).as("tokens not above every token returned before the call").isEmpty();
    }

    /** @return the ids of the sections whose [acquired, released] interval overlaps another section's */
    private static Set<Integer> overlapping(List<Section> all) {
        List<Section> byStart = all.stream().sorted(Comparator.comparingLong(Section::acquired)).toList();
        Set<Integer> ids = new HashSet<>();
        Section latestEnding = null;
        for (Section x : byStart) {
            if (latestEnding != null && x.acquired() < latestEnding.released()) {
                ids.add(x.id());
                ids.add(latestEnding.id());
            }
            if (latestEnding == null || x.released() > latestEnding.released()) {
                latestEnding = x;
            }
        }
        return ids;
    }
}
