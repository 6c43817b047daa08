package io.dlock.bench;

import io.dlock.LockClientConfig;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * The scenarios of the issue, S1–S8 (the 2-JVM ones are {@link TwoJvms}) and the renewal traffic W; then the rest of
 * the family, S9–S12 ({@link FamilyScenarios}); then VT and VTS on virtual threads ({@link VirtualThreadScenarios}).
 */
final class Scenarios {
    private Scenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>(List.of(
                simple("S1", "1 thread, lock()+unlock() on one name", 1, (lib, t) -> lib.lock("s1")),
                simple("S2", "16 threads, each its own lock name", 16, (lib, t) -> lib.lock("s2:" + t)),
                contended("S3", "8 threads of one JVM on one lock (exact counter)", 8, false),
                new TwoJvms("S4", "2 JVM processes x 4 threads on one lock (exact counter in Redis)",
                        ContendWorker.Mode.PLAIN, 4),
                contended("S5", "fair lock, 8 threads on one lock (exact counter)", 8, true),
                new TwoJvms("S5J", "fair lock, 2 JVM processes x 4 threads on one lock (exact counter in Redis)",
                        ContendWorker.Mode.FAIR, 4),
                Scenario.of("S6", "16 threads read-locking one read-write lock", Scenarios::readers),
                Scenario.of("S7", "16 threads, 90% read / 10% write (extra = writer latency)", Scenarios::mixed),
                new TwoJvms("S7J", "2 JVM processes x 8 threads, 90% read / 10% write (extra = writer latency; "
                        + "exact writer counter in Redis)", ContendWorker.Mode.READ_WRITE, 8),
                new FailingTryLock(false),
                new FailingTryLock(true),
                new Renewal(1),
                new Renewal(1000)));
        all.addAll(FamilyScenarios.all());
        all.addAll(VirtualThreadScenarios.all());
        all.addAll(ObservationScenarios.all());
        all.addAll(3, ReactiveScenarios.all()); // beside S1 and S3, which they mirror
        return all;
    }

    interface LockPerThread {
        Lock lock(Library library, int thread);
    }

    /** Independent lock+unlock cycles, one lock object per thread. */
    static Scenario simple(String id, String title, int threads, LockPerThread locks) {
        return Scenario.of(id, title, (library, context, duration) -> {
            Lock[] perThread = new Lock[threads];
            for (int t = 0; t < threads; t++) {
                perThread[t] = locks.lock(library, t);
            }
            Load.Result load = Load.run(threads, duration, t -> {
                perThread[t].lock();
                perThread[t].unlock();
                return true;
            });
            return new Scenario.Outcome(load, load.failure() == null ? "ok" : load.failure().toString());
        });
    }

    /** Threads of one JVM contending on one lock, with the exactness check. */
    static Scenario contended(String id, String title, int threads, boolean fair) {
        return Scenario.of(id, title, (library, context, duration) -> {
            Lock lock = fair ? library.fairLock(id) : library.lock(id);
            Exclusion exclusion = new Exclusion();
            Load.Result load = Load.run(threads, duration, t -> {
                lock.lock();
                try {
                    exclusion.exclusive();
                } finally {
                    lock.unlock();
                }
                return true;
            });
            return new Scenario.Outcome(load, load.failure() != null ? load.failure().toString()
                    : exclusion.verdict(load.ops()));
        });
    }

    /** S6: 16 threads read-locking one read-write lock. */
    private static Scenario.Outcome readers(Library library, Bench.Context context, Duration duration)
            throws Exception {
        ReadWriteLock rw = library.readWriteLock("s6");
        Lock read = rw.readLock();
        Load.Result load = Load.run(16, duration, t -> {
            read.lock();
            read.unlock();
            return true;
        });
        return new Scenario.Outcome(load, load.failure() == null ? "ok" : load.failure().toString());
    }

    /** S7: 16 threads, 90% read / 10% write on one read-write lock; writer latency reported apart. */
    private static Scenario.Outcome mixed(Library library, Bench.Context context, Duration duration)
            throws Exception {
        ReadWriteLock rw = library.readWriteLock("s7");
        Exclusion exclusion = new Exclusion();
        long[] writes = new long[16];
        Load.Result load = Load.run(16, duration, t -> {
            if (ThreadLocalRandom.current().nextInt(10) == 0) {
                rw.writeLock().lock();
                try {
                    exclusion.exclusive();
                } finally {
                    rw.writeLock().unlock();
                }
                writes[t]++;
                return false;
            }
            rw.readLock().lock();
            try {
                exclusion.shared();
            } finally {
                rw.readLock().unlock();
            }
            return true;
        });
        long totalWrites = 0;
        for (long w : writes) {
            totalWrites += w;
        }
        return new Scenario.Outcome(load, load.failure() != null ? load.failure().toString()
                : exclusion.verdict(totalWrites));
    }

    /**
     * S8: one thread calling tryLock() on a lock held elsewhere (the failing path). The holder is another client
     * (its own connections and client id, as another process would be), so every call asks Redis. S8L is the same
     * with the holder a thread of the caller's own client, which dlock answers without Redis.
     */
    static final class FailingTryLock implements Scenario {
        private final boolean sameClient;

        FailingTryLock(boolean sameClient) {
            this.sameClient = sameClient;
        }

        public String id() {
            return sameClient ? "S8L" : "S8";
        }

        public String title() {
            return sameClient ? "1 thread, tryLock() on a lock another thread of its client holds"
                    : "1 thread, tryLock() on a lock another client holds";
        }

        public Outcome run(Library library, Bench.Context context, Duration duration) throws Exception {
            String name = id().toLowerCase();
            try (Library other = sameClient ? null
                    : Library.open(library.name(), context.uri(), LockClientConfig.DEFAULT_WATCHDOG_TIMEOUT)) {
                Library holderLibrary = sameClient ? library : other;
                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(1);
                Thread holder = new Thread(() -> {
                    Lock lock = holderLibrary.lock(name);
                    lock.lock();
                    held.countDown();
                    try {
                        done.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        lock.unlock();
                    }
                }, "s8-holder");
                holder.start();
                held.await();
                Lock lock = library.lock(name);
                long[] acquired = new long[1];
                Load.Result load;
                try {
                    load = Load.run(1, duration, t -> {
                        if (lock.tryLock()) {
                            acquired[0]++;
                            lock.unlock();
                        }
                        return true;
                    });
                } finally {
                    done.countDown();
                    holder.join(10_000);
                }
                return new Outcome(load, acquired[0] == 0 ? "ok" : "ACQUIRED a held lock x" + acquired[0]);
            }
        }
    }

    /**
     * W: renewal traffic while one client holds {@code count} watchdog locks: script calls per second, with a 3 s
     * watchdog (a renewal tick every second) for both libraries. "ops" here are renewal calls.
     */
    static final class Renewal implements Scenario {
        static final Duration WATCHDOG = Duration.ofSeconds(3);
        private final int count;

        Renewal(int count) {
            this.count = count;
        }

        public String id() {
            return "W" + count;
        }

        public String title() {
            return "renewal calls/s while " + count + " watchdog lock(s) are held (tick every 1 s)";
        }

        public Outcome run(Library library, Bench.Context context, Duration duration) throws Exception {
            Duration window = duration.compareTo(Duration.ofSeconds(3)) < 0 ? Duration.ofSeconds(3) : duration;
            try (Library shortWatchdog = Library.open(library.name(), context.uri(), WATCHDOG)) {
                List<Lock> held = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    Lock lock = shortWatchdog.lock("w:" + i);
                    lock.lock();
                    held.add(lock);
                }
                var before = context.stats().calls();
                Thread.sleep(window.toMillis());
                var after = context.stats().calls();
                long calls = RedisStats.delta(before, after, "evalsha") + RedisStats.delta(before, after, "eval");
                for (Lock lock : held) {
                    lock.unlock();
                }
                Histogram none = Measurement.newHistogram();
                return new Outcome(new Load.Result(calls, window.toMillis() / 1e3, none, null, null), "ok");
            }
        }
    }
}
