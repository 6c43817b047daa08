package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Locks on a Redis Cluster (three masters, one replica each) whose masters fail over while the locks are held and
 * waited for.
 *
 * <p>What survives, as measured here: {@code CLUSTER FAILOVER} (the coordinated switch an operator runs) loses no
 * acknowledged write, so holders keep their holds, renewals go on against the new master and nobody is told of a
 * loss; waiters hear the release at once (the plain subscription hears {@code PUBLISH} from any node, the shard
 * subscription follows the slot). A master killed outright takes {@code cluster-node-timeout} (2 s here) plus an
 * election to be replaced; the hold is replicated by then, but with the 1.5 s watchdog lease of these tests it runs
 * out before any renewal can reach the new master, so the holder is told ({@code RENEWAL_FAILED}) and the key expires;
 * with a lease longer than the failover the holder keeps it. The test accepts either outcome of the kill and checks
 * that it is the one the holder sees.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.CLUSTER)
@ClientSettings(watchdogTimeoutMillis = ClusterFailoverIT.WATCHDOG_MS, commandTimeoutMillis = 450)
@Timeout(value = 120, unit = SECONDS)
class ClusterFailoverIT {
    static final long WATCHDOG_MS = 1500;
    private static final long RENEWAL_PERIOD_MS = WATCHDOG_MS / 3;
    private static final long WAKE_UP_MS = 1000;

    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private Workers workers;
    private RawRedis raw;
    private String name;

    @BeforeEach
    void setUp(ClusterTopology cluster, TestInfo info) {
        name = "it:ClusterFailoverIT:" + info.getTestMethod().orElseThrow().getName();
        workers = new Workers("cluster-worker");
        raw = RawRedis.connect(cluster.uri());
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    /** A lock name of this test whose slot the given master owns. */
    private String nameOn(ClusterTopology cluster, RedisServer master) {
        for (int k = 0; ; k++) {
            String candidate = name + ":" + k;
            if (cluster.masterFor(candidate) == master) {
                return candidate;
            }
        }
    }

    /** Waits in another thread for {@code lockName} on {@code client}; returns when it had the lock (and let go). */
    private Future<Long> waitFor(LockClient client, String lockName) {
        return workers.submit(() -> {
            DistributedLock lock = client.getLock(lockName);
            lock.lock();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
    }

    /**
     * {@code unlock()}, repeated while it fails with {@link LockException}: until the client's topology refresh has
     * seen the promoted replica, commands for the killed master's slots time out.
     */
    private static void unlockOnceReachable(DistributedLock lock) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try {
                lock.unlock();
                return;
            } catch (LockException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw notYet;
                }
            }
        }
    }

    @Test
    void holdsSurviveACoordinatedFailoverOfEveryShardAndWaitersFollow(ClusterTopology cluster, LockClient a,
                                                                     LockClient b) throws Exception {
        a.addLeaseLostListener(lost::add);
        List<String> names = new ArrayList<>();
        for (RedisServer master : cluster.masters()) {
            names.add(nameOn(cluster, master));
        }
        assertThat(names).hasSize(3);
        List<DistributedLock> holds = new ArrayList<>();
        List<Future<Long>> waiters = new ArrayList<>();
        for (String lockName : names) {
            DistributedLock lock = a.getLock(lockName);
            lock.lock();
            holds.add(lock);
            waiters.add(waitFor(b, lockName));
        }
        Leaks.awaitWaiters(b, names.size());

        for (String lockName : names) {
            RedisServer old = cluster.masterFor(lockName);
            RedisServer promoted = cluster.failover(ClusterTopology.slot(lockName));
            assertThat(promoted).isNotSameAs(old);
            assertThat(cluster.masterFor(lockName)).isSameAs(promoted);
        }

        // nothing was lost: the holds are on the new masters and keep being renewed there
        Await.during(Duration.ofMillis(3 * RENEWAL_PERIOD_MS), () -> lost.isEmpty(),
                () -> "a coordinated failover lost a hold: " + lost);
        long me = Thread.currentThread().getId();
        for (int i = 0; i < names.size(); i++) {
            assertThat(raw.hgetall(names.get(i))).containsEntry(RawRedis.field(a.getId(), me), "1");
            assertThat(raw.pttl(names.get(i))).isPositive();
            assertThat(holds.get(i).leaseValidFor()).isPositive();
        }

        // the waiters hear each release at once
        for (int i = 0; i < names.size(); i++) {
            long released = System.nanoTime();
            holds.get(i).unlock();
            long acquiredAt = Workers.get(waiters.get(i), Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(acquiredAt - released).toMillis())
                    .as("ms until the waiter of %s had the lock", names.get(i)).isLessThan(WAKE_UP_MS);
        }
        Leaks.assertClientIdle(a);
        Leaks.assertClientIdle(b);
        Leaks.assertNoSubscriptions(raw);
        assertThat(raw.keys()).isEmpty();
    }

    /**
     * A waiter's shard subscription follows its slot through a coordinated failover onto the promoted master, and
     * nowhere else once there: the demoted master drops it (a SUNSUBSCRIBE it sends), the client makes it again where
     * its topology still shows the slot (mostly the demoted master, which as a replica takes SSUBSCRIBE for its
     * master's slots), then on the promoted master once its topology shows it, unsubscribing the demoted one. Redis
     * 8.0 answers a SUNSUBSCRIBE on a replica with MOVED (Redis 7.0 and Valkey 8.1 unsubscribe): the copy left there
     * outlived every waiter.
     */
    @Test
    void aWaitersShardSubscriptionFollowsAFailoverOntoThePromotedMasterOnly(ClusterTopology cluster, LockClient a,
                                                                            LockClient b) throws Exception {
        DistributedLock held = a.getLock(name);
        held.lock(Duration.ofSeconds(60)); // no renewal: a failover slower than the watchdog's lease loses nothing here
        Future<Long> waiter = waitFor(b, name);
        Leaks.awaitWaiters(b, 1);
        String channel = RawRedis.lockChannel(name);
        RedisServer promoted = cluster.failover(ClusterTopology.slot(name));
        Set<String> expected = raw.hasShardedPubSub() ? Set.of(promoted.host() + ":" + promoted.port()) : Set.of();

        // the client's topology refresh (every 5 s at most) shows the promoted master; the subscription moves there
        Await.untilAsserted(Duration.ofSeconds(15), () -> assertThat(raw.shardSubscribedNodes(channel))
                .as("nodes with a shard subscription to %s", channel).isEqualTo(expected));
        long released = System.nanoTime();
        unlockOnceReachable(held);
        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(acquiredAt - released).toMillis()).as("ms until the waiter had the lock")
                .isLessThan(WAKE_UP_MS);
        Leaks.assertClientIdle(b);
        Leaks.assertNoSubscriptions(raw);
    }

    @Test
    void aKilledMastersHoldIsKeptOrReportedAndItsWaiterGoesOn(ClusterTopology cluster, LockClient a, LockClient b)
            throws Exception {
        a.addLeaseLostListener(lost::add);
        DistributedLock held = a.getLock(name);
        held.lock();
        Future<Long> waiter = waitFor(b, name);
        Leaks.awaitWaiters(b, 1);

        RedisServer old = cluster.masterFor(name);
        RedisServer promoted = cluster.killMasterOf(ClusterTopology.slot(name));
        assertThat(promoted).isNotSameAs(old);

        raw.close();
        raw = RawRedis.connect(cluster.uri()); // a fresh view of the topology
        boolean kept = Boolean.TRUE.equals(raw.sync().hexists(name, RawRedis.field(a.getId(),
                Thread.currentThread().getId())));
        if (kept) {
            Await.during(Duration.ofMillis(3 * RENEWAL_PERIOD_MS), () -> lost.isEmpty(),
                    () -> "a hold the new master has was reported lost: " + lost);
            assertThat(held.leaseValidFor()).isPositive();
            long released = System.nanoTime();
            unlockOnceReachable(held);
            long acquiredAt = Workers.get(waiter, Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(acquiredAt - released).toMillis()).as("ms until the waiter had the lock")
                    .isLessThan(WAKE_UP_MS);
        } else {
            Await.until(Duration.ofMillis(WATCHDOG_MS), () -> !lost.isEmpty(),
                    "the holder of a hold lost with the killed master must be told");
            assertThat(lost).extracting(LeaseLostEvent::lockName).containsExactly(name);
            assertThatThrownBy(() -> unlockOnceReachable(held)).isInstanceOf(IllegalMonitorStateException.class);
            Workers.get(waiter, Duration.ofSeconds(10));
        }
        System.out.printf("cluster: after SIGKILL of the master of slot %d the hold was %s%n",
                ClusterTopology.slot(name), kept ? "kept" : "lost and reported: " + lost);
        io.dlock.testkit.ServerCrashes.recoverOrSkip(cluster::recover);
        Leaks.assertClientIdle(a);
        Leaks.assertClientIdle(b);
    }
}
