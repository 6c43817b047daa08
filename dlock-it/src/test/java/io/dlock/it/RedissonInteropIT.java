package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
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
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * dlock and Redisson 4.7.0 sharing one lock name: they exclude each other, wake each other's waiters through the
 * shared channel, and write holds of the same shape.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class RedissonInteropIT {

    /** A wake-up must come from the unlock message: every lease in these tests is far longer. */
    private static final long WAKE_UP_MS = 1000;
    private static final String UUID_FIELD = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:[0-9]+";

    private String name;
    private RawRedis raw;
    private RedissonClient redisson;
    private Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("interop-worker");
        redisson = Redissons.connect(topology, 5000);
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            if (redisson != null) {
                redisson.shutdown(0, 5, SECONDS);
            }
        } finally {
            raw.close();
        }
    }

    @Test
    void eachExcludesTheOther(LockClient a) throws InterruptedException {
        RLock theirs = redisson.getLock(name);
        DistributedLock ours = a.getLock(name);

        theirs.lock();
        assertThat(ours.tryLock()).as("dlock while Redisson holds").isFalse();
        assertThat(ours.tryLock(200, MILLISECONDS)).as("dlock waiting while Redisson holds").isFalse();
        assertThat(ours.isLocked()).isTrue();
        assertThat(ours.isHeldByCurrentThread()).as("same thread id, other client").isFalse();
        assertThat(ours.remainTimeToLive()).isBetween(1L, 5000L);
        assertThatThrownBy(ours::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(theirs.isHeldByCurrentThread()).isTrue();
        theirs.unlock();
        assertThat(raw.exists(name)).isFalse();

        ours.lock();
        assertThat(theirs.tryLock()).as("Redisson while dlock holds").isFalse();
        assertThat(theirs.tryLock(200, MILLISECONDS)).as("Redisson waiting while dlock holds").isFalse();
        assertThat(theirs.isLocked()).isTrue();
        assertThat(theirs.isHeldByCurrentThread()).isFalse();
        assertThat(theirs.remainTimeToLive()).isBetween(1L, 30_000L);
        assertThatThrownBy(theirs::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(ours.isHeldByCurrentThread()).isTrue();
        ours.unlock();
        assertThat(raw.exists(name)).isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void redissonUnlockWakesADlockWaiter(LockClient a) {
        RLock theirs = redisson.getLock(name);
        theirs.lock(60, SECONDS);
        DistributedLock ours = a.getLock(name);
        Future<Long> waiter = workers.submit(() -> {
            ours.lock();
            long at = System.nanoTime();
            ours.unlock();
            return at;
        });
        Leaks.awaitWaiters(a, 1);
        String channel = RawRedis.lockChannel(name);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel) >= 1,
                () -> "dlock's waiter should listen on " + channel + "; channels: " + raw.channels());

        long t0 = System.nanoTime();
        theirs.unlock();
        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(acquiredAt - t0).toMillis()).as("ms until dlock's waiter had the lock")
                .isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(name)).isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void dlockUnlockWakesARedissonWaiter(LockClient a) {
        DistributedLock ours = a.getLock(name);
        ours.lock(60, SECONDS);
        RLock theirs = redisson.getLock(name);
        CountDownLatch started = new CountDownLatch(1);
        Future<Long> waiter = workers.submit(() -> {
            started.countDown();
            theirs.lock();
            long at = System.nanoTime();
            theirs.unlock();
            return at;
        });
        String channel = RawRedis.lockChannel(name);
        // (a plain or, on a cluster with sharded pub/sub, a shard subscription)
        Await.until(Duration.ofSeconds(10), () -> started.getCount() == 0
                        && raw.subscribers(channel) + raw.shardSubscribers(channel) >= 1,
                () -> "Redisson's waiter should listen on " + channel + "; channels: " + raw.channels());

        long t0 = System.nanoTime();
        ours.unlock();
        long acquiredAt = Workers.get(waiter, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(acquiredAt - t0).toMillis()).as("ms until Redisson's waiter had the lock")
                .isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(name)).isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void holdsHaveTheSameShapeAndStayApart(LockClient a) {
        long me = Thread.currentThread().getId();
        DistributedLock ours = a.getLock(name);
        RLock theirs = redisson.getLock(name);

        ours.lock();
        ours.lock();
        Map<String, String> hash = raw.hgetall(name);
        assertThat(hash).isEqualTo(Map.of(a.getId() + ":" + me, "2"));
        assertThat(hash.keySet()).allMatch(f -> f.matches(UUID_FIELD), "uuid:threadId");
        assertThat(theirs.isLocked()).isTrue();
        assertThat(theirs.isHeldByThread(me)).as("Redisson's isHeldByThread for dlock's hold").isFalse();
        assertThat(theirs.isHeldByCurrentThread()).isFalse();
        assertThat(theirs.getHoldCount()).isZero();
        ours.unlock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of(a.getId() + ":" + me, "1"));
        ours.unlock();
        assertThat(raw.exists(name)).isFalse();

        theirs.lock();
        theirs.lock();
        hash = raw.hgetall(name);
        assertThat(hash).isEqualTo(Map.of(redisson.getId() + ":" + me, "2"));
        assertThat(hash.keySet()).allMatch(f -> f.matches(UUID_FIELD), "uuid:threadId");
        assertThat(ours.isLocked()).isTrue();
        assertThat(ours.as(LockOwner.of(me)).isHeldByCurrentThread()).as("dlock's owner " + me + " for Redisson's hold")
                .isFalse();
        assertThat(ours.isHeldByCurrentThread()).isFalse();
        assertThat(ours.getHoldCount()).isZero();
        assertThat(theirs.getHoldCount()).isEqualTo(2);
        theirs.unlock();
        theirs.unlock();
        assertThat(raw.exists(name)).isFalse();

        // a lease written by dlock is honoured by Redisson's view of the TTL
        ours.lock(10, SECONDS);
        assertThat(theirs.remainTimeToLive()).isBetween(9000L, 10_000L);
        ours.unlock();
        Leaks.assertClientIdle(a);
    }
}
