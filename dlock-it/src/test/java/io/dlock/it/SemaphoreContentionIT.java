package io.dlock.it;

import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.it.support.PermitOverlapCounter;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Threads of two dlock clients and a Redisson client contend for the permits of one semaphore: never more inside
 * than permits, every permit back at the end, nobody starved.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class SemaphoreContentionIT {

    private static final int PERMITS = 4;
    private static final int THREADS_PER_CLIENT = 6;
    private static final long RUN_MS = 3000;

    @Test
    void plainPermitsInUseNeverExceedTheCount(RedisTopology topology, LockClient a, LockClient b) {
        String name = "it:SemaphoreContentionIT:plain";
        RedissonClient redisson = Redissons.connect(topology, 5000);
        try (Workers workers = new Workers("sem-contention")) {
            a.getSemaphore(name).trySetPermits(PERMITS);
            PermitOverlapCounter counter = new PermitOverlapCounter(PERMITS);
            RSemaphore theirs = redisson.getSemaphore(name);
            List<Future<Integer>> runs = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
            for (LockClient client : List.of(a, b)) {
                DistributedSemaphore ours = client.getSemaphore(name);
                for (int i = 0; i < THREADS_PER_CLIENT; i++) {
                    runs.add(workers.submit(Workers.until(end, () -> {
                        if (!ours.tryAcquire(1, Duration.ofSeconds(10))) {
                            throw new AssertionError("no permit within 10 s");
                        }
                        counter.passThrough();
                        ours.release();
                        return null;
                    })));
                }
            }
            for (int i = 0; i < 2; i++) {
                runs.add(workers.submit(Workers.until(end, () -> {
                    if (!theirs.tryAcquire(1, 10, SECONDS)) {
                        throw new AssertionError("Redisson: no permit within 10 s");
                    }
                    counter.passThrough();
                    theirs.release();
                    return null;
                })));
            }
            int total = 0;
            for (Future<Integer> run : runs) {
                int n = Workers.get(run, Duration.ofSeconds(60));
                assertThat(n).as("every thread got permits").isPositive();
                total += n;
            }
            assertThat(counter.maxInside()).as("most inside at once").isBetween(2, PERMITS);
            assertThat(total).isEqualTo(counter.entries());
            assertThat(a.getSemaphore(name).availablePermits()).as("every permit back").isEqualTo(PERMITS);
            SemaphoreProbe.assertIdle(a);
            SemaphoreProbe.assertIdle(b);
        } finally {
            redisson.shutdown(0, 5, SECONDS);
        }
    }

    @Test
    void leasedPermitsInUseNeverExceedTheCount(RedisTopology topology, LockClient a, LockClient b) {
        String name = "it:SemaphoreContentionIT:leased";
        RedissonClient redisson = Redissons.connect(topology, 5000);
        try (Workers workers = new Workers("leased-contention")) {
            a.getLeasedSemaphore(name).trySetPermits(PERMITS);
            PermitOverlapCounter counter = new PermitOverlapCounter(PERMITS);
            RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
            List<Future<Integer>> runs = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
            for (LockClient client : List.of(a, b)) {
                LeasedSemaphore ours = client.getLeasedSemaphore(name);
                for (int i = 0; i < THREADS_PER_CLIENT; i++) {
                    boolean watchdog = i % 2 == 0;
                    runs.add(workers.submit(Workers.until(end, () -> {
                        Permit permit = ours.tryAcquire(Duration.ofSeconds(10),
                                watchdog ? null : Duration.ofSeconds(30))
                                .orElseThrow(() -> new AssertionError("no permit within 10 s"));
                        counter.passThrough();
                        if (!permit.release()) {
                            throw new AssertionError("permit " + permit.id() + " was not valid at its release");
                        }
                        return null;
                    })));
                }
            }
            runs.add(workers.submit(Workers.until(end, () -> {
                String id = theirs.tryAcquire(10, 30, SECONDS);
                if (id == null) {
                    throw new AssertionError("Redisson: no permit within 10 s");
                }
                counter.passThrough();
                theirs.release(id);
                return null;
            })));
            int total = 0;
            for (Future<Integer> run : runs) {
                int n = Workers.get(run, Duration.ofSeconds(60));
                assertThat(n).as("every thread got permits").isPositive();
                total += n;
            }
            assertThat(counter.maxInside()).as("most inside at once").isBetween(2, PERMITS);
            assertThat(total).isEqualTo(counter.entries());
            assertThat(a.getLeasedSemaphore(name).availablePermits()).as("every permit back").isEqualTo(PERMITS);
            assertThat(a.getLeasedSemaphore(name).acquiredPermits()).isZero();
            SemaphoreProbe.assertIdle(a);
            SemaphoreProbe.assertIdle(b);
        } finally {
            redisson.shutdown(0, 5, SECONDS);
        }
    }

    @Test
    void cancellingWaitsAtRandomMomentsNeitherLosesNorAddsPermits(LockClient a, LockClient b) throws Exception {
        String plainName = "it:SemaphoreContentionIT:cancel-plain";
        String leasedName = "it:SemaphoreContentionIT:cancel-leased";
        a.getSemaphore(plainName).trySetPermits(2);
        a.getLeasedSemaphore(leasedName).trySetPermits(2);
        java.util.Random random = new java.util.Random(42);
        try (Workers workers = new Workers("cancel-contention")) {
            List<Future<Integer>> runs = new ArrayList<>();
            for (LockClient client : List.of(a, b)) {
                for (int t = 0; t < 3; t++) {
                    long seed = random.nextLong();
                    runs.add(workers.submit(() -> {
                        java.util.Random r = new java.util.Random(seed);
                        DistributedSemaphore plain = client.getSemaphore(plainName);
                        LeasedSemaphore leased = client.getLeasedSemaphore(leasedName);
                        int got = 0;
                        for (int i = 0; i < 60; i++) {
                            java.util.concurrent.CompletableFuture<Void> p = plain.acquireAsync();
                            java.util.concurrent.CompletableFuture<Permit> q = leased.acquireAsync();
                            Thread.sleep(r.nextInt(3));
                            p.cancel(true);
                            q.cancel(true);
                            if (!p.isCancelled()) {
                                p.get(10, SECONDS);
                                got++;
                                plain.release();
                            }
                            if (!q.isCancelled()) {
                                q.get(10, SECONDS).close();
                                got++;
                            }
                        }
                        return got;
                    }));
                }
            }
            int granted = 0;
            for (Future<Integer> run : runs) {
                granted += Workers.get(run, Duration.ofSeconds(60));
            }
            assertThat(granted).as("some acquisitions won before their cancel").isPositive();
        }
        SemaphoreProbe.assertIdle(a);
        SemaphoreProbe.assertIdle(b);
        io.dlock.redisprocess.Await.untilAsserted(Duration.ofSeconds(5), () -> {
            assertThat(a.getSemaphore(plainName).availablePermits()).as("plain permits, exactly").isEqualTo(2);
            assertThat(a.getLeasedSemaphore(leasedName).availablePermits()).as("leased permits, exactly")
                    .isEqualTo(2);
            assertThat(a.getLeasedSemaphore(leasedName).acquiredPermits()).isZero();
        });
    }
}
