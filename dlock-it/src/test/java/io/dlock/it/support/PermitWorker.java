package io.dlock.it.support;

import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.Permit;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child JVM of {@code SemaphoreProcessesIT}: {@code threads} threads each take a permit of a semaphore
 * {@code iterations} times and count who is inside in Redis ({@code <counterKey>:inside}, its highest value in
 * {@code <counterKey>:max}, both in one script so the maximum is exact). More inside than {@code permits} is a failure.
 *
 * <p>Usage: {@code PermitWorker <redisUri> <semaphore> <counterKey> <threads> <iterations> <permits> plain|leased}.
 * Announces itself with INCR {@code <counterKey>:ready}, starts when {@code <counterKey>:go} exists. Exit code 0 =
 * every iteration done and never too many inside.
 */
public final class PermitWorker {
    private static final String ENTER = "local v = redis.call('incr', KEYS[1]) "
            + "if v > tonumber(redis.call('get', KEYS[2]) or '0') then redis.call('set', KEYS[2], v) end return v";

    private PermitWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: PermitWorker <redisUri> <semaphore> <counterKey> <threads> <iterations> "
                    + "<permits> plain|leased");
            System.exit(2);
        }
        String uri = args[0];
        String name = args[1];
        String counterKey = args[2];
        int threads = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        int permits = Integer.parseInt(args[5]);
        boolean leased = args[6].equals("leased");
        CounterWorker.dieWithParent();

        AtomicInteger failures = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        LockClientConfig config = LockClientConfig.builder().redisUri(uri).watchdogTimeout(Duration.ofSeconds(3))
                .build();
        try (LockClient client = LockClient.create(config); RawRedis raw = RawRedis.connect(uri)) {
            raw.sync().incr(counterKey + ":ready");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (raw.sync().exists(counterKey + ":go") == 0) {
                if (System.nanoTime() - deadline > 0) {
                    CounterWorker.log("ERROR: no go signal within 60 s");
                    System.exit(3);
                }
                Thread.sleep(5);
            }
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    DistributedSemaphore plain = client.getSemaphore(name);
                    LeasedSemaphore leasedSemaphore = client.getLeasedSemaphore(name);
                    try {
                        for (int i = 0; i < iterations; i++) {
                            Permit permit = null;
                            if (leased) {
                                permit = leasedSemaphore.acquire();
                            } else {
                                plain.acquire();
                            }
                            long inside = raw.sync().eval(ENTER, ScriptOutputType.INTEGER,
                                    counterKey + ":inside", counterKey + ":max");
                            if (inside > permits) {
                                failures.incrementAndGet();
                                CounterWorker.log("ERROR: " + inside + " inside, with " + permits + " permits");
                            }
                            Thread.sleep(1);
                            raw.sync().decr(counterKey + ":inside");
                            if (permit != null) {
                                if (!permit.release()) {
                                    failures.incrementAndGet();
                                    CounterWorker.log("ERROR: permit " + permit.id() + " not valid at release");
                                }
                            } else {
                                plain.release();
                            }
                            done.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        failures.incrementAndGet();
                        CounterWorker.log("ERROR in " + Thread.currentThread().getName() + ": " + e);
                        e.printStackTrace();
                    }
                }, "permit-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(120));
                if (worker.isAlive()) {
                    failures.incrementAndGet();
                    CounterWorker.log("ERROR: " + worker.getName() + " still running after 120 s");
                }
            }
        } catch (Throwable e) {
            failures.incrementAndGet();
            CounterWorker.log("ERROR: " + e);
            e.printStackTrace();
        }
        CounterWorker.log("finished: " + done.get() + " rounds, " + failures.get() + " failures");
        System.exit(failures.get() == 0 && done.get() == threads * iterations ? 0 : 1);
    }
}
