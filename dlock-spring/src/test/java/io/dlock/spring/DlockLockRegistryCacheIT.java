package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry's cache of lock objects is capped, least recently used unlocked entries first (issue 20, point 2). */
@ExtendWith(RedisExtension.class)
class DlockLockRegistryCacheIT {
    private final ExecutorService threads = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void theDefaultCapacityIs100000(LockClient client) {
        DlockLockRegistry registry = new DlockLockRegistry(client);
        assertThat(registry.getCacheCapacity()).isEqualTo(DlockLockRegistry.DEFAULT_CACHE_CAPACITY)
                .isEqualTo(100_000);
        for (int i = 0; i < 200_000; i++) {
            registry.obtain("key-" + i);
        }
        assertThat(registry.cachedLocks()).isEqualTo(100_000);
        assertThat(registry.cachedKeys()).contains("key-199999").doesNotContain("key-99999");
    }

    @Test
    void manyThreadsObtainingAndLockingStayWithinTheCapacity(LockClient client) throws Exception {
        DlockLockRegistry registry = new DlockLockRegistry(client);
        registry.setCacheCapacity(179);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> work = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            String key = "many:" + i;
            work.add(threads.submit(() -> {
                start.await();
                Lock lock = registry.obtain(key);
                lock.lock();
                lock.unlock();
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : work) {
            f.get(60, TimeUnit.SECONDS);
        }
        assertThat(registry.cachedLocks()).isEqualTo(179);
        registry.expireUnusedOlderThan(-1000);
        assertThat(registry.cachedLocks()).isZero();
    }

    @Test
    void theLeastRecentlyObtainedGoFirstAndAChangedCapacityAppliesAtTheNextObtain(LockClient client) {
        DlockLockRegistry registry = new DlockLockRegistry(client);
        registry.setCacheCapacity(4);
        Lock one = registry.obtain("k1");
        registry.obtain("k2");
        registry.obtain("k3");
        registry.setCacheCapacity(3);
        assertThat(registry.obtain("k1")).as("obtained again: now the most recent").isSameAs(one);
        registry.obtain("k4");
        assertThat(registry.cachedKeys()).containsExactlyInAnyOrder("k1", "k3", "k4");
        registry.setCacheCapacity(4);
        registry.obtain("k5");
        assertThat(registry.cachedKeys()).containsExactlyInAnyOrder("k1", "k3", "k4", "k5");
        assertThatThrownBy(() -> registry.setCacheCapacity(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cacheCapacity");
    }

    @Test
    void aLockInUseIsNeverEvicted(LockClient client) throws Exception {
        DlockLockRegistry registry = new DlockLockRegistry(client);
        registry.setCacheCapacity(2);
        Lock held = registry.obtain("held");
        held.lock();
        CountDownLatch waiting = new CountDownLatch(1);
        Lock contended = registry.obtain("contended");
        contended.lock();
        Future<Boolean> waiter = threads.submit(() -> {
            waiting.countDown();
            boolean got = contended.tryLock(30, TimeUnit.SECONDS);
            if (got) {
                contended.unlock();
            }
            return got;
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            for (int i = 0; i < 10; i++) {
                registry.obtain("other-" + i);
            }
            assertThat(registry.cachedKeys()).containsExactly("held", "contended", "other-9");
            assertThat(registry.obtain("held")).isSameAs(held);
            assertThat(registry.obtain("contended")).isSameAs(contended);
        } finally {
            contended.unlock();
            held.unlock();
        }
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
        registry.obtain("after");
        assertThat(registry.cachedKeys()).containsExactly("contended", "after");
    }
}
