package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.StressShare;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion when several clients each run several threads on one exclusive lock (plain; also fair, write side
 * and fenced), with local hand-offs on (the default): the lock passes straight between owners of one client while owners of the other clients contend through
 * Redis. This is the shape in which a hand-off once raced with a waiter sent to Redis by an unlock message (see
 * {@code LocalCohort}): about 1 run in 25 let an owner run inside without a Redis hold, and every other one in two let a
 * second owner in.
 *
 * <p>Each run takes a fresh lock name and fresh clients; every thread does {@value #ITERATIONS} times: {@code lock()},
 * check nobody else is inside, {@code INCR} a Redis counter, yield, leave, {@code unlock()}. A run fails on an overlap,
 * on an {@code unlock()} that finds the hold gone ({@link IllegalMonitorStateException}), or on a counter that does not
 * match. {@value #RUNS} runs catch a defect that shows in 1 run of 25 with probability 1 - (24/25)^170 > 99.9%.
 *
 * <p>CI splits the runs of each shape across its four server lines ({@link StressShare}: each leg runs its part, run
 * indices {@code [from, to)} of the same numbering), so the suite keeps its power without repeating it per line; a
 * plain {@code mvn verify} runs them all.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 12, unit = MINUTES)
class HandoffContentionStressIT {
    static final int RUNS = 170;
    /**
     * Runs of the other exclusive kinds (fair, write side, fenced), whose hand-offs share the plain lock's machinery
     * ({@code HandOffRelease}) with a script of their own, and of the multi-lock over three plain locks (across slots
     * and on one slot), whose waits and wake-ups are the members': 1 - (24/25)^75 > 95% for a 1-in-25 defect.
     */
    static final int OTHER_KIND_RUNS = 75;
    static final int ITERATIONS = 200;
    static final int OTHER_KIND_ITERATIONS = 100;

    @Test
    void twoClientsTimesTwoThreads(RedisServer server) throws Exception {
        stress(server, "2x2", 2, 2, RUNS, ITERATIONS, LockClient::getLock);
    }

    @Test
    void threeClientsTimesThreeThreads(RedisServer server) throws Exception {
        stress(server, "3x3", 3, 3, RUNS, ITERATIONS, LockClient::getLock);
    }

    @ParameterizedTest(name = "{0} {1}x{1}")
    @CsvSource({"fair, 2", "fair, 3", "write, 2", "write, 3", "fenced, 2", "fenced, 3", "multi, 2", "multi, 3",
            "multi-one-slot, 2", "multi-one-slot, 3"})
    void everyExclusiveKind(String kind, int size, RedisServer server) throws Exception {
        BiFunction<LockClient, String, DistributedLock> lockOf = switch (kind) {
            case "fair" -> LockClient::getFairLock;
            case "write" -> (client, name) -> client.getReadWriteLock(name).writeLock();
            case "fenced" -> LockClient::getFencedLock;
            // three plain locks, each member on its own slot (taken one after another) or all on one (one script);
            // both released member by member, every release sent before any reply is awaited
            case "multi" -> (client, name) -> client.getMultiLock(client.getLock(name + ":a"),
                    client.getLock(name + ":b"), client.getLock(name + ":c"));
            case "multi-one-slot" -> (client, name) -> client.getMultiLock(client.getLock("{" + name + "}:a"),
                    client.getLock("{" + name + "}:b"), client.getLock("{" + name + "}:c"));
            default -> throw new IllegalArgumentException(kind);
        };
        stress(server, kind + ":" + size + "x" + size, size, size, OTHER_KIND_RUNS, OTHER_KIND_ITERATIONS, lockOf);
    }

    private static void stress(RedisServer server, String shape, int clients, int threads, int runs, int iterations,
                               BiFunction<LockClient, String, DistributedLock> lockOf) throws Exception {
        List<String> defects = new ArrayList<>();
        StressShare share = StressShare.current();
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            for (int run = share.from(runs); run < share.to(runs); run++) {
                String lockName = "it:handoff-stress:" + shape + ":" + run;
                String defect = oneRun(server, raw, lockName, clients, threads, iterations, lockOf);
                if (defect != null) {
                    defects.add("run " + run + ": " + defect);
                }
                raw.sync().del(lockName + ":counter");
            }
        }
        assertThat(defects).as("runs with a defect out of %d (%s, share %s of %d runs)", share.count(runs), shape,
                share, runs).isEmpty();
    }

    /** @return what went wrong in this run, or null */
    private static String oneRun(RedisServer server, RawRedis raw, String lockName, int clients, int threads,
                                 int iterations, BiFunction<LockClient, String, DistributedLock> lockOf)
            throws Exception {
        String counter = lockName + ":counter";
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger notHeld = new AtomicInteger();
        List<LockClient> opened = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients * threads);
        try {
            for (int c = 0; c < clients; c++) {
                opened.add(LockClient.create(LockClientConfig.builder().redisUri(server.uri()).build()));
            }
            CyclicBarrier start = new CyclicBarrier(clients * threads);
            List<Future<?>> workers = new ArrayList<>();
            for (LockClient client : opened) {
                DistributedLock lock = lockOf.apply(client, lockName);
                for (int t = 0; t < threads; t++) {
                    workers.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < iterations; i++) {
                            lock.lock();
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            raw.sync().incr(counter);
                            Thread.yield();
                            inside.decrementAndGet();
                            try {
                                lock.unlock();
                            } catch (IllegalMonitorStateException e) {
                                notHeld.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> worker : workers) {
                worker.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            opened.forEach(LockClient::close);
        }
        String count = raw.sync().get(counter);
        int expected = clients * threads * iterations;
        if (overlaps.get() == 0 && notHeld.get() == 0 && Integer.toString(expected).equals(count)) {
            return null;
        }
        return overlaps.get() + " overlaps, " + notHeld.get() + " unlock() found the hold gone, counter " + count
                + " of " + expected;
    }
}
