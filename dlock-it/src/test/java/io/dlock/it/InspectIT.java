package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.NotALockException;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LockClient#inspect(String)} on locks written by dlock and by Redisson 4.7. */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InspectIT {
    private RawRedis raw;
    private RedissonClient redisson;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp(RedisServer server) {
        raw = RawRedis.connect(server.uri());
        redisson = Redissons.connect(server, 30_000);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        redisson.shutdown(0, 5, TimeUnit.SECONDS);
        raw.close();
    }

    @Test
    void freeLockIsNone(LockClient client) {
        LockInfo info = client.inspect("inspect:free");
        assertThat(info.name()).isEqualTo("inspect:free");
        assertThat(info.type()).isEqualTo(LockInfo.Type.NONE);
        assertThat(info.mode()).isNull();
        assertThat(info.holders()).isEmpty();
        assertThat(info.waiters()).isEmpty();
        assertThat(info.ttlMillis()).isEqualTo(DistributedLock.TTL_NOT_LOCKED);
        assertThat(info.fencingToken()).isNull();
    }

    @Test
    void heldPlainLockShowsHolderCountAndTtl(LockClient client) {
        DistributedLock lock = client.getLock("inspect:plain");
        lock.lock(20, TimeUnit.SECONDS);
        lock.lock(20, TimeUnit.SECONDS);
        try {
            LockInfo info = client.inspect("inspect:plain");
            assertThat(info.type()).isEqualTo(LockInfo.Type.LOCK);
            assertThat(info.mode()).isNull();
            assertThat(info.holders()).containsExactly(
                    new LockInfo.Holder(client.getId(), Thread.currentThread().getId(), 2, false));
            assertThat(info.ttlMillis()).isBetween(15_000L, 20_000L);
        } finally {
            lock.forceUnlock();
        }
    }

    @Test
    void redissonFairQueueIsListedInOrderWithDeadlines(LockClient client) throws Exception {
        String name = "inspect:fair";
        RLock holder = redisson.getFairLock(name);
        holder.lock(30, TimeUnit.SECONDS);
        List<Long> waiterThreads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            int expected = i + 1;
            threads.submit(() -> {
                synchronized (waiterThreads) {
                    waiterThreads.add(Thread.currentThread().getId());
                }
                try {
                    redisson.getFairLock(name).tryLock(20, 1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return null;
            });
            Await.until(Duration.ofSeconds(5), () -> client.inspect(name).waiters().size() == expected,
                    "waiter " + expected + " queued");
        }
        LockInfo info = client.inspect(name);
        assertThat(info.type()).isEqualTo(LockInfo.Type.LOCK);
        assertThat(info.holders()).singleElement().extracting(LockInfo.Holder::holdCount).isEqualTo(1);
        assertThat(info.waiters()).extracting(LockInfo.Waiter::threadId).containsExactlyElementsOf(waiterThreads);
        assertThat(info.waiters()).allSatisfy(w -> assertThat(w.deadline()).isAfter(Instant.now()));
        assertThat(info.waiters().get(0).deadline()).isBefore(info.waiters().get(1).deadline());
        // The Redisson waiters are interrupted by the tear-down; their queue entries do not outlive the test's
        // database.
        holder.forceUnlock();
    }

    @Test
    void redissonReadWriteLockShowsModeReadersAndWriter(LockClient client) throws Exception {
        String name = "inspect:rw";
        RReadWriteLock rw = redisson.getReadWriteLock(name);
        rw.writeLock().lock(20, TimeUnit.SECONDS);
        rw.readLock().lock(20, TimeUnit.SECONDS);
        LockInfo info = client.inspect(name);
        assertThat(info.type()).isEqualTo(LockInfo.Type.READ_WRITE);
        assertThat(info.mode()).isEqualTo(LockInfo.Mode.WRITE);
        long me = Thread.currentThread().getId();
        assertThat(info.holders()).extracting(LockInfo.Holder::threadId, LockInfo.Holder::holdCount,
                LockInfo.Holder::write).containsExactly(
                org.assertj.core.groups.Tuple.tuple(me, 1, true), org.assertj.core.groups.Tuple.tuple(me, 1, false));
        rw.writeLock().unlock();
        info = client.inspect(name);
        assertThat(info.mode()).isEqualTo(LockInfo.Mode.READ);
        assertThat(info.holders()).singleElement().extracting(LockInfo.Holder::write).isEqualTo(false);
        rw.readLock().unlock();
        assertThat(client.inspect(name).type()).isEqualTo(LockInfo.Type.NONE);
    }

    @Test
    void fencingTokenCounterIsReported(LockClient client) {
        raw.sync().set("redisson_lock_token:{inspect:token}", "41");
        raw.sync().incr("redisson_lock_token:{inspect:token}");
        assertThat(client.inspect("inspect:token").fencingToken()).isEqualTo(42L);
    }

    @Test
    void keyOfAnotherTypeIsAClearError(LockClient client) {
        raw.sync().set("inspect:string", "x");
        assertThatThrownBy(() -> client.inspect("inspect:string")).isInstanceOf(NotALockException.class)
                .hasMessageContaining("inspect:string").hasMessageContaining("string");
        assertThatThrownBy(() -> client.inspect(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
