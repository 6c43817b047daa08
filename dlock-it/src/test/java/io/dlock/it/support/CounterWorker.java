package io.dlock.it.support;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM of {@code MutualExclusionStressIT}: {@code threads} threads each increment a counter kept in Redis
 * {@code iterations} times, non-atomically (GET, then SET n+1) inside the lock. Any overlap shows as a lost update; a
 * second, direct check counts who is inside with INCR/DECR on {@code <counterKey>:inside}.
 *
 * <p>Usage: {@code CounterWorker <redisUri> <lockName> <counterKey> <threads> <iterations>}. Announces itself with
 * INCR {@code <counterKey>:ready}, then starts when {@code <counterKey>:go} exists (so all children run together).
 * Progress and errors go to stderr; exit code 0 = every iteration done and no overlap seen.
 */
public final class CounterWorker {
    private CounterWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: CounterWorker <redisUri> <lockName> <counterKey> <threads> <iterations>");
            System.exit(2);
        }
        String uri = args[0];
        String lockName = args[1];
        String counterKey = args[2];
        int threads = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        dieWithParent();

        AtomicInteger failures = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        LockClientConfig config = LockClientConfig.builder()
                .redisUri(uri)
                .watchdogTimeout(Duration.ofSeconds(5))
                .build();
        try (LockClient client = LockClient.create(config); RawRedis raw = RawRedis.connect(uri)) {
            log("connected as " + client.getId());
            raw.sync().incr(counterKey + ":ready");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (raw.sync().exists(counterKey + ":go") == 0) {
                if (System.nanoTime() - deadline > 0) {
                    log("ERROR: no go signal within 60 s");
                    System.exit(3);
                }
                Thread.sleep(5);
            }
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int style = t % 3;
                Thread worker = new Thread(() -> {
                    DistributedLock lock = client.getLock(lockName);
                    try {
                        for (int i = 0; i < iterations; i++) {
                            acquire(lock, style);
                            try {
                                long inside = raw.sync().incr(counterKey + ":inside");
                                if (inside != 1) {
                                    failures.incrementAndGet();
                                    log("ERROR: " + inside + " inside the critical section");
                                }
                                String value = raw.sync().get(counterKey);
                                long n = value == null ? 0 : Long.parseLong(value);
                                raw.sync().set(counterKey, Long.toString(n + 1));
                                raw.sync().decr(counterKey + ":inside");
                            } finally {
                                lock.unlock();
                            }
                            int total = done.incrementAndGet();
                            if (total % 50 == 0) {
                                log(total + " increments done");
                            }
                        }
                    } catch (Throwable e) {
                        failures.incrementAndGet();
                        log("ERROR in " + Thread.currentThread().getName() + ": " + e);
                        e.printStackTrace();
                    }
                }, "counter-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(120));
                if (worker.isAlive()) {
                    failures.incrementAndGet();
                    log("ERROR: " + worker.getName() + " still running after 120 s");
                }
            }
        } catch (Throwable e) {
            failures.incrementAndGet();
            log("ERROR: " + e);
            e.printStackTrace();
        }
        log("finished: " + done.get() + " increments, " + failures.get() + " failures");
        System.exit(failures.get() == 0 && done.get() == threads * iterations ? 0 : 1);
    }

    /** Three ways in, so that every waiting path is exercised. */
    private static void acquire(DistributedLock lock, int style) throws InterruptedException {
        switch (style) {
            case 0 -> lock.lock();
            case 1 -> {
                if (!lock.tryLock(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("tryLock(60 s) gave up");
                }
            }
            default -> lock.lockInterruptibly();
        }
    }

    /** Ends this JVM when the test JVM goes away, so no orphan keeps running. */
    static void dieWithParent() {
        ProcessHandle.current().parent().ifPresent(parent -> parent.onExit().thenRun(() -> {
            log("parent exited, exiting too");
            Runtime.getRuntime().halt(4);
        }));
    }

    static void log(String message) {
        System.err.println(java.time.LocalTime.now() + " [" + Thread.currentThread().getName() + "] " + message);
        System.err.flush();
    }
}
