package io.dlock.it;

import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
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
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * dlock's semaphores and Redisson 4.7.0's {@code RSemaphore} / {@code RPermitExpirableSemaphore} on one name: every
 * operation in both directions, wake-ups across clients, and permit ids that cross.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class SemaphoreRedissonInteropIT {

    /** A wake-up by message, well inside dlock's re-check interval (Redisson has no re-check at all). */
    private static final long WAKE_UP_MS = 700;

    private String name;
    private RawRedis raw;
    private RedissonClient redisson;
    private Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:SemInterop:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("sem-interop-worker");
        redisson = Redissons.connect(topology, 5000);
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            redisson.shutdown(0, 5, SECONDS);
        } finally {
            raw.close();
        }
    }

    // ---- RSemaphore

    @Test
    void countsAreSharedExactly(LockClient client) {
        RSemaphore theirs = redisson.getSemaphore(name);
        DistributedSemaphore ours = client.getSemaphore(name);
        assertThat(theirs.trySetPermits(3)).isTrue();
        assertThat(ours.trySetPermits(9)).as("set by Redisson").isFalse();
        assertThat(ours.availablePermits()).isEqualTo(3);
        assertThat(ours.tryAcquire(2)).isTrue();
        assertThat(theirs.availablePermits()).isEqualTo(1);
        assertThat(theirs.tryAcquire(2)).isFalse();
        assertThat(theirs.tryAcquire()).isTrue();
        assertThat(ours.tryAcquire()).isFalse();
        theirs.release(2);
        ours.release();
        assertThat(theirs.availablePermits()).isEqualTo(3);
        ours.addPermits(2);
        assertThat(theirs.availablePermits()).isEqualTo(5);
        theirs.addPermits(-1);
        assertThat(ours.availablePermits()).isEqualTo(4);
        ours.addPermits(-6);
        assertThat(theirs.availablePermits()).isEqualTo(-2);
        assertThat(theirs.drainPermits()).isEqualTo(-2);
        assertThat(ours.availablePermits()).isZero();
        ours.release(3);
        assertThat(theirs.drainPermits()).isEqualTo(3);
        theirs.release(2);
        assertThat(ours.drainPermits()).isEqualTo(2);
        assertThat(theirs.trySetPermits(1)).as("0 counts as set").isFalse();
        assertThat(theirs.delete()).isTrue();
        assertThat(ours.trySetPermits(2, Duration.ofSeconds(60))).isTrue();
        assertThat(theirs.trySetPermits(1)).isFalse();
        assertThat(theirs.availablePermits()).isEqualTo(2);
        assertThat(theirs.remainTimeToLive()).isBetween(50_000L, 60_000L);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aRedissonReleaseWakesADlockWaiter(LockClient client) {
        RSemaphore theirs = redisson.getSemaphore(name);
        DistributedSemaphore ours = client.getSemaphore(name);
        theirs.trySetPermits(0);
        Future<Long> waiter = workers.submit(() -> {
            ours.acquire(2);
            return System.nanoTime();
        });
        SemaphoreProbe.awaitWaiters(client, 1);
        awaitListener(1);
        long released = System.nanoTime();
        theirs.release(2);
        long at = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).isLessThan(WAKE_UP_MS);
        assertThat(theirs.availablePermits()).isZero();
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aDlockReleaseWakesARedissonWaiter(LockClient client) {
        RSemaphore theirs = redisson.getSemaphore(name);
        DistributedSemaphore ours = client.getSemaphore(name);
        ours.trySetPermits(0);
        Future<Long> waiter = workers.submit(() -> {
            theirs.acquire(2); // Redisson never re-checks: only our message can wake it
            return System.nanoTime();
        });
        awaitListener(1);
        Await.during(Duration.ofMillis(200), () -> !waiter.isDone(), "Redisson waits");
        long released = System.nanoTime();
        ours.release(2);
        long at = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).isLessThan(WAKE_UP_MS);
        assertThat(ours.availablePermits()).isZero();

        // and through addPermits and trySetPermits
        Future<Boolean> second = workers.submit(() -> theirs.tryAcquire(1, 20, SECONDS));
        awaitListener(1);
        ours.addPermits(1);
        assertThat(Workers.get(second, Duration.ofSeconds(5))).isTrue();
        ours.delete();
        Future<Boolean> third = workers.submit(() -> theirs.tryAcquire(1, 20, SECONDS));
        awaitListener(1);
        assertThat(ours.trySetPermits(1)).isTrue();
        assertThat(Workers.get(third, Duration.ofSeconds(5))).isTrue();
    }

    /** Waits until {@code n} subscribers (classic or sharded) listen on the semaphore's channel. */
    private void awaitListener(long n) {
        String channel = "redisson_sc:{" + name + "}";
        Await.until(Duration.ofSeconds(10),
                () -> raw.subscribers(channel) + raw.shardSubscribers(channel) >= n,
                () -> "a waiter should listen on " + channel + "; channels: " + raw.channels());
    }

    // ---- RPermitExpirableSemaphore

    @Test
    void permitIdsCrossClients(@ClientSettings(watchdogTimeoutMillis = 3000) LockClient client) throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        assertThat(theirs.trySetPermits(3)).isTrue();
        assertThat(ours.trySetPermits(3)).isFalse();

        Permit permit = ours.acquire();
        assertThat(theirs.availablePermits()).isEqualTo(2);
        assertThat(theirs.acquiredPermits()).isEqualTo(1);
        assertThat(theirs.getLeaseTime(permit.id())).as("Redisson sees our watchdog lease").isBetween(1L, 3000L);
        theirs.release(permit.id());
        assertThat(permit.release()).as("released by Redisson before").isFalse();
        assertThat(ours.availablePermits()).as("given back once").isEqualTo(3);

        String theirId = theirs.acquire(30, SECONDS);
        assertThat(ours.acquiredPermits()).isEqualTo(1);
        assertThat(ours.release(theirId)).isTrue();
        assertThat(theirs.tryRelease(theirId)).isFalse();
        assertThatThrownBy(() -> ours.release(theirId)).isInstanceOf(IllegalArgumentException.class);

        String noLease = theirs.acquire();
        Permit fixed = ours.acquire(Duration.ofSeconds(20));
        assertThat(theirs.getLeaseTime(fixed.id())).isBetween(15_000L, 20_000L);
        assertThat(ours.acquiredPermits()).isEqualTo(2);
        assertThat(ours.release(noLease.toUpperCase())).as("ids in either case").isTrue();
        assertThat(theirs.tryRelease(fixed.id())).isTrue();
        assertThat(fixed.release()).isFalse();

        ours.setPermits(5);
        assertThat(theirs.getPermits()).isEqualTo(5);
        theirs.addPermits(1);
        assertThat(ours.availablePermits()).isEqualTo(6);
        theirs.setPermits(2);
        assertThat(ours.availablePermits()).isEqualTo(2);
        SemaphoreProbe.assertIdle(client);
    }

    /**
     * Issue 27's calls for Redisson users, across the two libraries: several permits at once released as a list of
     * ids by the other side (both ways), {@code tryRelease} of the other side's ids, all or none on both sides, and a
     * lease extended by {@link Permit#extendLease} as Redisson's {@code getLeaseTime} sees it.
     */
    @Test
    void severalPermitsListsOfIdsAndExtendedLeasesCrossClients(
            @ClientSettings(watchdogTimeoutMillis = 3000) LockClient client) throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        assertThat(theirs.trySetPermits(6)).isTrue();

        // dlock takes three at once; Redisson gives them back as one list of ids
        List<Permit> mine = ours.acquire(3, Duration.ofSeconds(30));
        assertThat(theirs.availablePermits()).isEqualTo(3);
        assertThat(theirs.acquiredPermits()).isEqualTo(3);
        for (Permit permit : mine) {
            assertThat(theirs.getLeaseTime(permit.id())).isBetween(25_000L, 30_000L);
        }
        List<String> mineIds = mine.stream().map(Permit::id).toList();
        theirs.release(mineIds);
        assertThat(ours.availablePermits()).as("all three back").isEqualTo(6);
        assertThat(theirs.tryRelease(mineIds)).as("released already").isZero();
        for (Permit permit : mine) {
            assertThat(permit.release()).as("released by Redisson before").isFalse();
        }

        // Redisson takes two at once; dlock gives them back as one list, all or none
        List<String> theirIds = theirs.acquire(2, 30, SECONDS);
        assertThat(ours.acquiredPermits()).isEqualTo(2);
        String unknown = "0123456789abcdef0123456789abcdef";
        assertThat(ours.tryRelease(List.of(theirIds.get(0), unknown))).as("one unknown: none").isFalse();
        assertThat(theirs.acquiredPermits()).isEqualTo(2);
        ours.release(theirIds);
        assertThat(theirs.availablePermits()).isEqualTo(6);
        assertThat(theirs.tryRelease(theirIds.get(1))).isFalse();

        // tryRelease of an id Redisson took (without a lease)
        String theirId = theirs.tryAcquire();
        assertThat(ours.tryRelease(theirId)).isTrue();
        assertThat(ours.tryRelease(theirId)).as("released already: false, no exception").isFalse();
        assertThat(theirs.tryRelease(theirId)).isFalse();
        assertThat(theirs.availablePermits()).isEqualTo(6);

        // a lease extended here is the lease Redisson sees
        Permit fixed = ours.acquire(Duration.ofSeconds(5));
        assertThat(theirs.getLeaseTime(fixed.id())).isBetween(1L, 5_000L);
        assertThat(fixed.extendLease(Duration.ofSeconds(60))).isTrue();
        assertThat(theirs.getLeaseTime(fixed.id())).isBetween(55_000L, 60_000L);
        assertThat(fixed.extendLease(Duration.ofSeconds(2))).as("shorter too").isTrue();
        assertThat(theirs.getLeaseTime(fixed.id())).isBetween(1L, 2_000L);
        assertThat(fixed.release()).isTrue();

        // Redisson's all or none on dlock's ids, one of them released already
        List<Permit> pair = ours.acquire(2);
        assertThat(theirs.getLeaseTime(pair.get(0).id())).as("a watchdog lease").isBetween(1L, 3000L);
        assertThat(pair.get(0).release()).isTrue();
        assertThat(theirs.tryRelease(pair.stream().map(Permit::id).toList())).as("none released").isZero();
        assertThat(ours.acquiredPermits()).isEqualTo(1);
        pair.get(1).close();
        assertThat(theirs.availablePermits()).isEqualTo(6);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void leasedReleasesWakeTheOthersWaiters(LockClient client) throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        ours.trySetPermits(1);
        Permit held = ours.acquire();
        Future<String> redissonWaiter = workers.submit(() -> theirs.tryAcquire(20, 30, SECONDS));
        awaitListener(1);
        Await.during(Duration.ofMillis(200), () -> !redissonWaiter.isDone(), "Redisson waits");
        long released = System.nanoTime();
        assertThat(held.release()).isTrue();
        String theirId = Workers.get(redissonWaiter, Duration.ofSeconds(5));
        assertThat(theirId).isNotNull();
        assertThat(Await.millisSince(released)).isLessThan(WAKE_UP_MS);

        Future<Permit> ourWaiter = workers.submit(() -> ours.acquire());
        SemaphoreProbe.awaitWaiters(client, 1);
        released = System.nanoTime();
        theirs.release(theirId);
        Permit ourPermit = Workers.get(ourWaiter, Duration.ofSeconds(5));
        assertThat(Await.millisSince(released)).isLessThan(WAKE_UP_MS);
        ourPermit.close();
        assertThat(theirs.availablePermits()).isEqualTo(1);
        SemaphoreProbe.assertIdle(client);
    }

    @Test
    void aRedissonPermitWithALeaseComesBackToADlockWaiter(LockClient client) throws Exception {
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
        LeasedSemaphore ours = client.getLeasedSemaphore(name);
        theirs.trySetPermits(1);
        theirs.acquire(500, MILLISECONDS);
        long start = System.nanoTime();
        Permit permit = ours.tryAcquire(Duration.ofSeconds(5), null).orElseThrow();
        assertThat(Await.millisSince(start)).as("after Redisson's lease, by the server's clock").isBetween(350L, 1500L);
        permit.close();
        assertThat(theirs.availablePermits()).isEqualTo(1);
    }
}
