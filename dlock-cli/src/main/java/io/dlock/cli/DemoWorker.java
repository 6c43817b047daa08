package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.Permit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The child JVMs of {@code dlock demo} ({@code java -cp <dlock.jar> io.dlock.cli.DemoWorker MODE …}). They talk to
 * the demo on stdout (one line per event) and stdin, and exit when stdin closes, so they never outlive the demo.
 *
 * <ul>
 *   <li>{@code count URI LOCK COUNTER THREADS ITERATIONS}: prints {@code READY}, waits for {@code GO}, then each
 *       thread adds 1 to the Redis key COUNTER ITERATIONS times with a deliberately slow read-modify-write (GET,
 *       then SET) under LOCK, and checks that nobody else is inside; prints {@code DONE <increments> <overlaps>}.</li>
 *   <li>{@code hold URI LOCK WATCHDOG_MS}: takes LOCK with a watchdog lease of WATCHDOG_MS, prints
 *       {@code LOCKED <client id> <owner id>}, and holds it until killed.</li>
 *   <li>{@code permits URI SEMAPHORE INSIDE THREADS ITERATIONS}: prints {@code READY}, waits for {@code GO}, then each
 *       thread takes a permit of the leased semaphore SEMAPHORE ITERATIONS times; inside, it adds 1 to the Redis key
 *       INSIDE (how many are inside now, across every JVM), stays a few milliseconds, and takes 1 off before it gives
 *       the permit back; prints {@code DONE <entries> <most inside at once>}.</li>
 * </ul>
 */
public final class DemoWorker {
    private DemoWorker() {
    }

    public static void main(String[] args) throws Exception {
        Logging.quiet();
        if (args.length == 0) {
            System.err.println("usage: DemoWorker count|hold|permits …");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        switch (args[0]) {
            case "count":
                count(args[1], args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]), in);
                break;
            case "hold":
                hold(args[1], args[2], Long.parseLong(args[3]), in);
                break;
            case "permits":
                permits(args[1], args[2], args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]), in);
                break;
            default:
                System.err.println("DemoWorker: unknown mode " + args[0]);
                System.exit(2);
        }
    }

    private static void count(String uri, String lockName, String counterKey, int threads, int iterations,
                              BufferedReader in) throws Exception {
        withRedis(uri, (client, cmd) -> {
            String insideKey = counterKey + ":inside";
            DistributedLock lock = client.getLock(lockName);
            AtomicInteger increments = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            race(in, threads, iterations, () -> {
                lock.lock();
                try {
                    if (cmd.incr(insideKey) != 1) {
                        overlaps.incrementAndGet();
                    }
                    String value = cmd.get(counterKey);
                    long next = (value == null ? 0 : Long.parseLong(value)) + 1;
                    // between the GET and this SET, an unlocked writer would be overwritten
                    cmd.set(counterKey, Long.toString(next));
                    increments.incrementAndGet();
                    cmd.decr(insideKey);
                } finally {
                    lock.unlock();
                }
                return true;
            }, () -> increments.get() + " " + overlaps.get());
        });
    }

    private static void permits(String uri, String semaphoreName, String insideKey, int threads, int iterations,
                                BufferedReader in) throws Exception {
        withRedis(uri, (client, cmd) -> {
            LeasedSemaphore semaphore = client.getLeasedSemaphore(semaphoreName);
            AtomicInteger entries = new AtomicInteger();
            AtomicLong mostInside = new AtomicLong();
            race(in, threads, iterations, () -> {
                Permit permit = semaphore.acquire();
                boolean stillOurs;
                try {
                    long inside = cmd.incr(insideKey); // everyone inside now, in every JVM
                    mostInside.accumulateAndGet(inside, Math::max);
                    entries.incrementAndGet();
                    Thread.sleep(3); // long enough for the others to pile up at the semaphore
                    cmd.decr(insideKey);
                } finally {
                    stillOurs = permit.release();
                }
                if (!stillOurs) { // its lease had ended: someone else may have had it
                    System.err.println("DemoWorker: permit " + permit.id() + " was lost while held");
                }
                return stillOurs;
            }, () -> entries.get() + " " + mostInside.get());
        });
    }

    /** Runs {@code work} with a lock client and a plain connection to {@code uri}, both closed afterwards. */
    private static void withRedis(String uri, RedisWork work) throws Exception {
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.connect(uri);
             StatefulRedisConnection<String, String> connection = redis.connect()) {
            work.run(client, connection.sync());
        } finally {
            redis.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /**
     * The race the demo starts: prints {@code READY}, waits for {@code GO} (exits 3 when anything else comes, the
     * demo went away), runs {@code pass} {@code iterations} times on each of {@code threads} threads, then prints
     * {@code DONE <result>}. Exits 1 when a pass failed: returned false, threw, or was interrupted (a thread stops at
     * its first exception).
     */
    private static void race(BufferedReader in, int threads, int iterations, Pass pass, Supplier<String> result)
            throws Exception {
        AtomicLong failures = new AtomicLong();
        say("READY");
        String line = in.readLine();
        if (!"GO".equals(line)) {
            System.exit(3); // the demo went away
        }
        exitWhenStdinCloses(in);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    for (int i = 0; i < iterations; i++) {
                        if (!pass.run()) {
                            failures.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failures.incrementAndGet();
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    System.err.println("DemoWorker: " + e);
                }
            }, "worker-" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        say("DONE " + result.get());
        if (failures.get() > 0) {
            System.exit(1);
        }
    }

    @FunctionalInterface
    private interface RedisWork {
        void run(LockClient client, RedisCommands<String, String> cmd) throws Exception;
    }

    /** One pass of one worker thread. */
    @FunctionalInterface
    private interface Pass {
        /** @return false when the pass went wrong without an exception (it counts as a failure) */
        boolean run() throws InterruptedException;
    }

    private static void hold(String uri, String lockName, long watchdogMs, BufferedReader in) throws Exception {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(uri)
                .watchdogTimeout(Duration.ofMillis(watchdogMs)).build());
        DistributedLock lock = client.getLock(lockName);
        lock.lock();
        say("LOCKED " + client.getId() + " " + Thread.currentThread().getId());
        while (in.readLine() != null) {
            // hold the lock until killed, or until the demo closes our stdin
        }
        Runtime.getRuntime().halt(3);
    }

    private static void exitWhenStdinCloses(BufferedReader in) {
        Thread watcher = new Thread(() -> {
            try {
                while (in.readLine() != null) {
                    // nothing else is sent
                }
            } catch (IOException e) {
                // same as end of input
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
