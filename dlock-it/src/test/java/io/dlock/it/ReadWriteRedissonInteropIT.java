package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
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
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;

import static io.dlock.DistributedLock.TTL_NOT_LOCKED;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * dlock's read-write lock and Redisson 4.7.0's {@code getReadWriteLock} on one name: readers of both share, a writer
 * of either excludes readers and writers of both, each one's release wakes the other's waiters promptly, and the hash
 * TTL follows the longest live read hold whoever wrote it.
 *
 * <p>Holders use 60 s leases and dlock waiters a client with a 30 s watchdog, so a prompt entry can only come from the
 * unlock message.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = 30_000)
@Timeout(value = 60, unit = SECONDS)
class ReadWriteRedissonInteropIT {

    private static final long WAKE_UP_MS = 1000;
    private static final Duration TASK_BOUND = Duration.ofSeconds(10);

    private String name;
    private RawRedis raw;
    private RedissonClient redisson;
    private Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("rw-interop-worker");
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

    private String channel() {
        return "redisson_rwlock:{" + name + "}";
    }

    private static long tid() {
        return Thread.currentThread().getId();
    }

    /** Redisson deletes its unlock latch after the reply, asynchronously: wait for it before checking. */
    private void assertServerEmpty() {
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
    }

    @Test
    void readersShareAndWritersExcludeBothWays(LockClient a) throws Exception {
        long me = tid();
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        DistributedReadWriteLock ours = a.getReadWriteLock(name);

        theirs.readLock().lock(60, SECONDS);
        assertThat(ours.readLock().tryLock()).as("dlock reader beside a Redisson reader").isTrue();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", redisson.getId() + ":" + me, "1",
                a.getId() + ":" + me, "1"));
        assertThat(workers.call(TASK_BOUND, () -> ours.writeLock().tryLock())).as("dlock writer while both read")
                .isFalse();
        assertThat(workers.call(TASK_BOUND, () -> theirs.writeLock().tryLock()))
                .as("Redisson writer while both read").isFalse();
        assertThat(theirs.readLock().isLocked()).isTrue();
        assertThat(ours.readLock().isLocked()).isTrue();
        assertThat(ours.readLock().getHoldCount()).isEqualTo(1);

        ours.readLock().unlock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", redisson.getId() + ":" + me, "1"));
        assertThat(raw.pttl(name)).as("still Redisson's 60 s hold").isGreaterThan(55_000L);
        theirs.readLock().unlock();
        assertServerEmpty();

        theirs.writeLock().lock(60, SECONDS);
        assertThat(ours.readLock().tryLock()).as("dlock reader while Redisson writes").isFalse();
        assertThat(ours.writeLock().tryLock(200, MILLISECONDS)).as("dlock writer while Redisson writes").isFalse();
        assertThat(ours.writeLock().isLocked()).isTrue();
        assertThat(ours.writeLock().isHeldByCurrentThread()).as("same thread id, other client").isFalse();
        assertThat(ours.readLock().remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);
        assertThat(ours.writeLock().remainTimeToLive()).isGreaterThan(55_000L);
        theirs.writeLock().unlock();
        assertServerEmpty();

        ours.writeLock().lock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "write", a.getId() + ":" + me + ":write", "1"));
        assertThat(workers.call(TASK_BOUND, () -> theirs.readLock().tryLock())).as("Redisson reader while dlock writes")
                .isFalse();
        assertThat(workers.call(TASK_BOUND, () -> theirs.writeLock().tryLock(200, MILLISECONDS)))
                .as("Redisson writer while dlock writes").isFalse();
        assertThat(theirs.writeLock().isLocked()).isTrue();
        assertThat(theirs.writeLock().isHeldByCurrentThread()).isFalse();
        assertThat(theirs.writeLock().getHoldCount()).isZero();
        ours.writeLock().unlock();
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    @Test
    void redissonReadReleaseWakesADlockWriter(LockClient a) {
        RLock theirs = redisson.getReadWriteLock(name).readLock();
        theirs.lock(60, SECONDS);
        DistributedLock write = a.getReadWriteLock(name).writeLock();
        Future<Long> writer = workers.submit(() -> {
            write.lock();
            long at = System.nanoTime();
            write.unlock();
            return at;
        });
        Leaks.awaitWaiters(a, 1);
        Await.until(Leaks.SETTLE, () -> raw.subscribers(channel()) >= 1, () -> "channels: " + raw.channels());
        // dlock's writer preference binds dlock readers only: Redisson's view and behaviour are unchanged
        assertThat(workers.call(TASK_BOUND, () -> {
            RLock another = redisson.getReadWriteLock(name).readLock();
            boolean in = another.tryLock();
            if (in) {
                another.unlock();
            }
            return in;
        })).as("a Redisson reader while a dlock writer waits").isTrue();

        long released = System.nanoTime();
        theirs.unlock();
        long at = Workers.get(writer, TASK_BOUND);
        assertThat(Duration.ofNanos(at - released).toMillis()).as("ms until dlock's writer had it")
                .isLessThan(WAKE_UP_MS);
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    @Test
    void dlockReadReleaseWakesARedissonWriter(LockClient a) {
        DistributedLock read = a.getReadWriteLock(name).readLock();
        read.lock(60, SECONDS);
        RLock theirs = redisson.getReadWriteLock(name).writeLock();
        CountDownLatch started = new CountDownLatch(1);
        Future<Long> writer = workers.submit(() -> {
            started.countDown();
            theirs.lock();
            long at = System.nanoTime();
            theirs.unlock();
            return at;
        });
        Await.until(TASK_BOUND, () -> started.getCount() == 0
                        && raw.subscribers(channel()) + raw.shardSubscribers(channel()) >= 1,
                () -> "Redisson's writer should listen on " + channel() + "; channels: " + raw.channels());

        long released = System.nanoTime();
        read.unlock();
        long at = Workers.get(writer, TASK_BOUND);
        assertThat(Duration.ofNanos(at - released).toMillis()).as("ms until Redisson's writer had it")
                .isLessThan(WAKE_UP_MS);
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    @Test
    void redissonWriteReleaseWakesEveryDlockReader(LockClient a, LockClient b) throws Exception {
        RLock theirs = redisson.getReadWriteLock(name).writeLock();
        theirs.lock(60, SECONDS);
        int readers = 4;
        CountDownLatch in = new CountDownLatch(readers);
        CountDownLatch out = new CountDownLatch(1);
        List<Future<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            DistributedLock read = (i % 2 == 0 ? a : b).getReadWriteLock(name).readLock();
            tasks.add(workers.submit(() -> {
                read.lock();
                in.countDown();
                assertThat(out.await(20, SECONDS)).isTrue();
                read.unlock();
                return null;
            }));
        }
        Leaks.awaitWaiters(a, 2);
        Leaks.awaitWaiters(b, 2);

        long released = System.nanoTime();
        theirs.unlock();
        assertThat(in.await(5, SECONDS)).as("every dlock reader entered").isTrue();
        assertThat(Await.millisSince(released)).as("ms until all dlock readers were in").isLessThan(WAKE_UP_MS);
        assertThat(raw.hgetall(name)).containsEntry("mode", "read").hasSize(1 + readers);
        out.countDown();
        for (Future<Void> task : tasks) {
            Workers.get(task, TASK_BOUND);
        }
        assertServerEmpty();
        Leaks.assertClientIdle(a);
        Leaks.assertClientIdle(b);
    }

    @Test
    void dlockWriteReleaseAndDowngradeWakeEveryRedissonReader(LockClient a) throws Exception {
        DistributedReadWriteLock ours = a.getReadWriteLock(name);
        ours.writeLock().lock(60, SECONDS);
        ours.readLock().lock(60, SECONDS);
        int readers = 3;
        CountDownLatch in = new CountDownLatch(readers);
        CountDownLatch out = new CountDownLatch(1);
        List<Future<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            tasks.add(workers.submit(() -> {
                RLock read = redisson.getReadWriteLock(name).readLock();
                read.lock(60, SECONDS);
                in.countDown();
                assertThat(out.await(20, SECONDS)).isTrue();
                read.unlock();
                return null;
            }));
        }
        Await.until(TASK_BOUND, () -> raw.subscribers(channel()) + raw.shardSubscribers(channel()) >= 1,
                () -> "Redisson's readers should listen on " + channel() + "; channels: " + raw.channels());
        Await.during(Duration.ofMillis(300), () -> in.getCount() == readers, "a Redisson reader entered a write lock");

        // downgrade: dlock keeps its read hold and Redisson's readers join it at once
        long released = System.nanoTime();
        ours.writeLock().unlock();
        assertThat(in.await(5, SECONDS)).as("every Redisson reader entered").isTrue();
        assertThat(Await.millisSince(released)).as("ms until all Redisson readers were in").isLessThan(WAKE_UP_MS);
        assertThat(raw.hgetall(name)).containsEntry("mode", "read").containsEntry(a.getId() + ":" + tid(), "1")
                .hasSize(2 + readers);
        assertThat(ours.readLock().isHeldByCurrentThread()).isTrue();
        out.countDown();
        for (Future<Void> task : tasks) {
            Workers.get(task, TASK_BOUND);
        }
        ours.readLock().unlock();
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    @Test
    void theHashLastsAsLongAsTheLongestReadHoldOfEitherLibrary(LockClient a) {
        RLock theirs = redisson.getReadWriteLock(name).readLock();
        DistributedLock ours = a.getReadWriteLock(name).readLock();

        // Redisson's release recomputes the TTL over our timeout keys too
        theirs.lock(10, SECONDS);
        ours.lock(60, SECONDS);
        assertThat(raw.pttl(name)).isGreaterThan(55_000L);
        theirs.unlock();
        assertThat(raw.pttl(name)).as("after Redisson's release: our 60 s hold").isGreaterThan(55_000L);
        ours.unlock();
        assertServerEmpty();

        // ours recomputes it over Redisson's
        ours.lock(10, SECONDS);
        theirs.lock(60, SECONDS);
        ours.lock(5, SECONDS);
        ours.unlock();
        ours.unlock();
        assertThat(raw.pttl(name)).as("after our release: Redisson's 60 s hold").isGreaterThan(55_000L);
        theirs.unlock();
        assertServerEmpty();

        // and shortens it when the longest hold goes
        theirs.lock(60, SECONDS);
        ours.lock(5, SECONDS);
        theirs.unlock();
        assertThat(raw.pttl(name)).as("after Redisson's release: our 5 s hold").isBetween(1L, 5000L);
        ours.unlock();
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    /**
     * Redisson's write release that keeps read holds (a downgrade) leaves the write hold's TTL on the hash, longer
     * than every read hold. Our read release then finds no hold with the hash's TTL, reads them all, and lowers it to
     * the longest one left.
     */
    @Test
    void afterARedissonDowngradeOurReadReleaseLowersTheHashToTheLongestReadHold(LockClient a) {
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        theirs.writeLock().lock(60, SECONDS);
        theirs.readLock().lock(5, SECONDS);
        theirs.writeLock().unlock();
        assertThat(raw.hgetall(name)).containsEntry("mode", "read");
        assertThat(raw.pttl(name)).as("Redisson's downgrade keeps the write lease").isGreaterThan(55_000L);

        DistributedLock ours = a.getReadWriteLock(name).readLock();
        ours.lock(10, SECONDS);
        ours.unlock();
        assertThat(raw.pttl(name)).as("lowered to Redisson's 5 s read hold").isBetween(1L, 5_000L);

        theirs.readLock().unlock();
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }

    /** A force-unlock by either library removes only a lock held in its side's mode, whoever holds it. */
    @Test
    void forceUnlockOfEitherLibraryRemovesOnlyItsOwnSidesModeWhoeverHolds(LockClient a) throws Exception {
        long me = tid();
        RReadWriteLock theirs = redisson.getReadWriteLock(name);
        DistributedReadWriteLock ours = a.getReadWriteLock(name);

        // read-held by both libraries: neither write side touches it
        theirs.readLock().lock(60, SECONDS);
        ours.readLock().lock(60, SECONDS);
        assertThat(ours.writeLock().forceUnlock()).as("dlock write side, read-held").isFalse();
        assertThat(workers.call(TASK_BOUND, () -> theirs.writeLock().forceUnlock()))
                .as("Redisson write side, read-held").isFalse();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", redisson.getId() + ":" + me, "1",
                a.getId() + ":" + me, "1"));
        assertThat(ours.readLock().getHoldCount()).isEqualTo(1);
        // dlock's read side removes Redisson's reader too
        assertThat(ours.readLock().forceUnlock()).isTrue();
        assertThat(raw.exists(name)).isFalse();
        assertThat(theirs.readLock().isLocked()).isFalse();
        assertServerEmpty();

        // write-held by dlock: neither read side touches it, Redisson's write side removes it
        ours.writeLock().lock(60, SECONDS);
        assertThat(ours.readLock().forceUnlock()).as("dlock read side, dlock writer").isFalse();
        assertThat(workers.call(TASK_BOUND, () -> theirs.readLock().forceUnlock()))
                .as("Redisson read side, dlock writer").isFalse();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "write", a.getId() + ":" + me + ":write", "1"));
        assertThat(ours.writeLock().getHoldCount()).isEqualTo(1);
        assertThat(workers.call(TASK_BOUND, () -> theirs.writeLock().forceUnlock())).isTrue();
        assertThat(raw.exists(name)).isFalse();
        assertThat(ours.writeLock().getHoldCount()).isZero();
        assertThatThrownBy(ours.writeLock()::unlock).as("the removed hold").isInstanceOf(
                IllegalMonitorStateException.class);

        // write-held by Redisson: dlock's read side leaves it, dlock's write side removes it
        theirs.writeLock().lock(60, SECONDS);
        assertThat(ours.readLock().forceUnlock()).as("dlock read side, Redisson writer").isFalse();
        assertThat(theirs.writeLock().isHeldByCurrentThread()).isTrue();
        assertThat(ours.writeLock().forceUnlock()).isTrue();
        assertThat(theirs.writeLock().isLocked()).isFalse();
        assertThat(ours.writeLock().forceUnlock()).as("nothing left").isFalse();
        assertThat(ours.readLock().forceUnlock()).as("nothing left").isFalse();
        assertServerEmpty();
        Leaks.assertClientIdle(a);
    }
}
