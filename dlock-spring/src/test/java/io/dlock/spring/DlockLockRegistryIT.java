package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Two registries on two clients act as two instances; the invariants RedisLockRegistry users rely on. */
@ExtendWith(RedisExtension.class)
class DlockLockRegistryIT {
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private int counter;

    @Test
    void twoRegistriesExcludeEachOtherAndTheirOwnThreads(LockClient first, LockClient second) throws Exception {
        LockRegistry<DistributedLock> a = new DlockLockRegistry(first);
        LockRegistry<DistributedLock> b = new DlockLockRegistry(second, "app", null);
        LockRegistry<DistributedLock> bSameNames = new DlockLockRegistry(second, "app", null);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        int perThread = 100;
        List<Future<?>> workers = new ArrayList<>();
        for (LockRegistry<DistributedLock> registry : List.of(new DlockLockRegistry(first, "app", null), b,
                bSameNames)) {
            for (int t = 0; t < 2; t++) {
                workers.add(threads.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        Lock lock = registry.obtain("counter");
                        lock.lock();
                        try {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            int read = counter;
                            Thread.yield();
                            counter = read + 1;
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                }));
            }
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(counter).isEqualTo(3 * 2 * perThread);
        assertThat(first.getLock("app:counter").isLocked()).isFalse();
        assertThat(a.obtain("counter")).as("another prefix, another lock").isNotSameAs(b.obtain("counter"));
    }

    @Test
    void locksAreReentrantPerThreadAndOnlyTheHolderUnlocks(LockClient first, LockClient second) throws Exception {
        DlockLockRegistry a = new DlockLockRegistry(first);
        DlockLockRegistry b = new DlockLockRegistry(second);
        Lock lock = a.obtain("orders:1");
        assertThat(a.obtain("orders:1")).isSameAs(lock);

        lock.lock();
        assertThat(lock.tryLock()).as("re-entry").isTrue();
        assertThat(threads.submit(() -> b.obtain("orders:1").tryLock()).get()).isFalse();
        assertThat(threads.submit(() -> lock.tryLock()).get()).as("another thread of this JVM").isFalse();
        assertThatThrownBy(() -> unwrap(threads.submit(() -> lock.unlock())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lock 'orders:1'")
                .hasMessageContaining("does not hold it");

        lock.unlock();
        assertThat(first.getLock("orders:1").isLocked()).as("one hold left").isTrue();
        lock.unlock();
        assertThat(first.getLock("orders:1").isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);

        Lock other = b.obtain("orders:1");
        assertThat(other.tryLock(1, TimeUnit.SECONDS)).isTrue();
        other.unlock();
    }

    @Test
    void tryLockWaitsForTheOtherInstanceToRelease(LockClient first, LockClient second) throws Exception {
        DlockLockRegistry a = new DlockLockRegistry(first);
        DlockLockRegistry b = new DlockLockRegistry(second);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = threads.submit(() -> {
            a.obtain("job").lock();
            held.countDown();
            release.await();
            a.obtain("job").unlock();
            return null;
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(b.obtain("job").tryLock(200, TimeUnit.MILLISECONDS)).isFalse();

        Future<Boolean> waiter = threads.submit(() -> {
            Lock lock = b.obtain("job");
            boolean got = lock.tryLock(10, TimeUnit.SECONDS);
            if (got) {
                lock.unlock();
            }
            return got;
        });
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
        assertThat(waiter.get(15, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void executeLockedRunsUnderTheLock(LockClient first) throws Exception {
        DlockLockRegistry registry = new DlockLockRegistry(first);
        String result = registry.executeLocked("report", () -> first.getLock("report").isLocked() ? "locked" : "free");
        assertThat(result).isEqualTo("locked");
        assertThat(first.getLock("report").isLocked()).isFalse();
    }

    @Test
    void expireUnusedOlderThanDropsOnlyLocksNotInUse(LockClient first) {
        DlockLockRegistry registry = new DlockLockRegistry(first);
        Lock held = registry.obtain("held");
        Lock idle = registry.obtain("idle");
        held.lock();
        try {
            registry.expireUnusedOlderThan(0);
            assertThat(registry.obtain("held")).isSameAs(held);
            assertThat(registry.obtain("idle")).isNotSameAs(idle);
            // a dropped object and its successor still agree: the thread re-enters through either
            Lock successor = registry.obtain("idle");
            idle.lock();
            assertThat(successor.tryLock()).isTrue();
            successor.unlock();
            idle.unlock();
            assertThat(first.getLock("idle").isLocked()).isFalse();
        } finally {
            held.unlock();
        }
    }

    @Test
    void fixedLeasesExpireAndRenewLockExtendsThem(LockClient first, LockClient second) throws Exception {
        DlockLockRegistry registry = new DlockLockRegistry(first, Duration.ofSeconds(2));
        Lock lock = registry.obtain("leased");
        lock.lock();
        try {
            assertThat(first.getLock("leased").remainTimeToLive()).isBetween(1L, 2000L);
            registry.renewLock("leased", Duration.ofSeconds(20));
            assertThat(first.getLock("leased").remainTimeToLive()).isBetween(2001L, 20_000L);
            registry.renewLock("leased");
            assertThat(first.getLock("leased").remainTimeToLive()).isBetween(1L, 2000L);
            assertThatThrownBy(() -> unwrap(threads.submit(() -> registry.renewLock("leased"))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not hold it");
        } finally {
            lock.unlock();
        }
        assertThat(first.getLock("leased").isLocked()).isFalse();

        DistributedLock shortLease = registry.obtain("short");
        shortLease.lock(Duration.ofMillis(300));
        Await.until(Duration.ofSeconds(5), () -> !second.getLock("short").isLocked(), "the lease ran out");
        assertThatThrownBy(shortLease::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("lock 'short'");
        assertThat(shortLease.tryLock()).as("released locally all the same").isTrue();
        shortLease.unlock();
    }

    /**
     * The lease is 400 ms and the holder keeps the lock for 3 s only by renewing it (both forms) every 100 ms, while
     * a registry of another instance tries to take it all the time: it never gets in while the holder holds, and the
     * lock stays locked after every renewal. Once the holder lets go, the other instance gets it.
     */
    @Test
    void renewLockNeverLetsTheLockGoInBetween(LockClient first, LockClient second) throws Throwable {
        DlockLockRegistry holderRegistry = new DlockLockRegistry(first, Duration.ofMillis(400));
        DlockLockRegistry otherRegistry = new DlockLockRegistry(second, Duration.ofMillis(400));
        AtomicInteger holderInside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger renewals = new AtomicInteger();
        CountDownLatch held = new CountDownLatch(1);
        Future<?> holder = threads.submit(() -> {
            Lock lock = holderRegistry.obtain("renewed");
            lock.lock();
            holderInside.set(1);
            held.countDown();
            try {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                for (int i = 0; System.nanoTime() - end < 0; i++) {
                    if (i % 2 == 0) {
                        holderRegistry.renewLock("renewed");
                    } else {
                        holderRegistry.renewLock("renewed", Duration.ofMillis(400));
                    }
                    renewals.incrementAndGet();
                    assertThat(first.getLock("renewed").isLocked()).isTrue();
                    Thread.sleep(100);
                }
            } finally {
                holderInside.set(0);
                lock.unlock();
            }
            return null;
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        Future<Integer> contender = threads.submit(() -> {
            Lock lock = otherRegistry.obtain("renewed");
            int attempts = 0;
            while (!lock.tryLock()) {
                attempts++;
                Thread.sleep(5);
            }
            try {
                if (holderInside.get() != 0) {
                    overlaps.incrementAndGet();
                }
            } finally {
                lock.unlock();
            }
            return attempts;
        });
        unwrap(holder);
        assertThat(contender.get(10, TimeUnit.SECONDS)).as("attempts while the holder held").isGreaterThan(100);
        assertThat(overlaps.get()).isZero();
        assertThat(renewals.get()).isGreaterThan(10);
    }

    @Test
    void renewLockFailsOnceTheHoldIsGoneAndDoesNotTakeItAgain(LockClient first, LockClient second) {
        DlockLockRegistry registry = new DlockLockRegistry(first, Duration.ofMillis(300));
        Lock lock = registry.obtain("expiring");
        lock.lock();
        try {
            Await.until(Duration.ofSeconds(5), () -> !second.getLock("expiring").isLocked(), "the lease runs out");
            assertThatThrownBy(() -> registry.renewLock("expiring")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lock 'expiring'").hasMessageContaining("cannot renew");
            assertThatThrownBy(() -> registry.renewLock("expiring", Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("lock 'expiring'");
            assertThat(second.getLock("expiring").isLocked()).as("not taken again").isFalse();
        } finally {
            assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        }

        lock.lock();
        second.getLock("expiring").forceUnlock();
        assertThatThrownBy(() -> registry.renewLock("expiring")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("gone");
        assertThat(second.getLock("expiring").isLocked()).as("not taken again").isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void renewLockWithATtlSetsAFixedLeaseOnAWatchdogHold(LockClient first) throws Exception {
        DlockLockRegistry registry = new DlockLockRegistry(first);
        Lock lock = registry.obtain("watched");
        lock.lock();
        try {
            registry.renewLock("watched");
            assertThat(first.getLock("watched").remainTimeToLive()).as("still the watchdog's").isGreaterThan(20_000L);
            registry.renewLock("watched", Duration.ofSeconds(5));
            assertThat(first.getLock("watched").remainTimeToLive()).isBetween(1L, 5_000L);
            assertThat(first.heldLocks()).singleElement().satisfies(hold ->
                    assertThat(hold.renewedByWatchdog()).isFalse());
        } finally {
            lock.unlock();
        }
        assertThat(first.getLock("watched").isLocked()).isFalse();
    }

    @Test
    void badKeysAndSchedulersAreRefusedClearly(LockClient first) {
        DlockLockRegistry registry = new DlockLockRegistry(first, Duration.ofSeconds(5));
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.setRenewalTaskScheduler(null))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("watchdog");
        assertThatThrownBy(() -> new DlockLockRegistry(first, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> registry.obtain("x").newCondition())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    private static Object unwrap(Future<?> future) throws Throwable {
        try {
            return future.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }
}
