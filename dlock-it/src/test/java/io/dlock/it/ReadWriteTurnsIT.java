package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.TuningSettings;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.TestOutcome;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Neither side of a read-write lock starves the other (issue 27, failure 10): a reader waiting behind writers that
 * take the lock back to back (two clients, two writer threads each, with and without local hand-offs) gets in after
 * the write hold it waited behind, and a writer waiting behind readers whose holds overlap without a gap gets in after
 * the read holds it waited behind. Readers and writers never overlap meanwhile (counted, not assumed).
 *
 * <p>The policy under test is phase-fair (see {@link io.dlock.DistributedReadWriteLock}): a dlock reader refused by a
 * write hold leaves a mark that keeps new dlock writers out, so the next write release lets the readers in; a
 * waiting writer's mark keeps new readers out, so the readers in leave and the writer gets in. The expected wait on
 * loopback is a few write holds (milliseconds); the bounds below allow for a loaded 2-core machine: every round
 * within {@link #ROUND_BOUND_MS}, the median within {@link #MEDIAN_BOUND_MS}.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = ReadWriteTurnsIT.WATCHDOG_MS)
@Timeout(value = 120, unit = SECONDS)
class ReadWriteTurnsIT {
    static final int WATCHDOG_MS = 6000;
    /** The caller's wait for one round: on the unfixed code a reader never got in within 3 s. */
    private static final long ROUND_WAIT_MS = 5000;
    private static final long ROUND_BOUND_MS = 1000;
    private static final long MEDIAN_BOUND_MS = 200;
    private static final int ROUNDS = 7;
    /** Acquisitions of the other side between two rounds, so that every round starts behind a running load. */
    private static final int LOAD_BETWEEN_ROUNDS = 20;

    @RegisterExtension
    final TestOutcome outcome = new TestOutcome();

    private RedisServer server;
    private String name;
    private RawRedis raw;
    private Workers workers;
    private volatile boolean stop;
    private final List<Future<?>> load = new ArrayList<>();
    private final List<LockClient> used = new ArrayList<>();
    private final List<LockClient> own = new ArrayList<>();
    private final AtomicInteger writersInside = new AtomicInteger();
    private final AtomicInteger readersInside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        name = "it:ReadWriteTurnsIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("rw-turns");
    }

    @AfterEach
    void tearDown() {
        try {
            stopLoad();
            if (!outcome.failed()) {
                for (LockClient client : used) {
                    Leaks.assertClientIdle(client);
                }
                Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
            }
        } finally {
            workers.close();
            own.forEach(LockClient::close);
            raw.close();
        }
    }

    private void stopLoad() {
        stop = true;
        for (Future<?> task : load) {
            Workers.get(task, Duration.ofSeconds(30));
        }
        load.clear();
    }

    private LockClient withoutHandOffs() {
        LockClient client = LockClient.create(LockClientConfig.builder().redisUri(server.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS))
                .tuning(TuningSettings.builder().localHandoffs(0).build()).build());
        own.add(client);
        return client;
    }

    // ------------------------------------------------------------------------------------------ inside, counted

    private void write(Lock lock, long holdMs) throws InterruptedException {
        lock.lock();
        try {
            if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                overlaps.incrementAndGet();
            }
            if (holdMs > 0) {
                Thread.sleep(holdMs);
            }
            writersInside.decrementAndGet();
            writes.incrementAndGet();
        } finally {
            lock.unlock();
        }
    }

    /** Inside a read hold: no writer may be inside, from the first moment to the last. */
    private void reading(long holdMs) throws InterruptedException {
        readersInside.incrementAndGet();
        if (writersInside.get() != 0) {
            overlaps.incrementAndGet();
        }
        if (holdMs > 0) {
            Thread.sleep(holdMs);
        }
        if (writersInside.get() != 0) {
            overlaps.incrementAndGet();
        }
        readersInside.decrementAndGet();
        reads.incrementAndGet();
    }

    private void read(Lock lock, long holdMs) throws InterruptedException {
        lock.lock();
        try {
            reading(holdMs);
        } finally {
            lock.unlock();
        }
    }

    /** Writer threads that take the write lock back to back until the test ends. */
    private void startWriters(LockClient client, int threads, long holdMs) {
        used.add(client);
        for (int t = 0; t < threads; t++) {
            load.add(workers.submit(() -> {
                Lock lock = client.getReadWriteLock(name).writeLock();
                while (!stop) {
                    write(lock, holdMs);
                }
                return null;
            }));
        }
    }

    /**
     * Reader threads whose holds overlap without a gap: each takes its read lock again right after releasing it, and
     * there are several of them, so the lock never stops being read-held unless a writer gets its turn.
     */
    private void startReaders(LockClient client, int threads, long holdMs) {
        used.add(client);
        for (int t = 0; t < threads; t++) {
            load.add(workers.submit(() -> {
                Lock lock = client.getReadWriteLock(name).readLock();
                while (!stop) {
                    read(lock, holdMs);
                }
                return null;
            }));
        }
    }

    private static void awaitProgress(AtomicLong counter, long atLeast, String what) {
        long target = counter.get() + atLeast;
        Await.until(Duration.ofSeconds(20), () -> counter.get() >= target,
                () -> what + ": " + counter.get() + " of " + target);
    }

    /** One side's rounds: each waits behind the running load of the other side, and its wait is measured. */
    private interface Round {
        /** @return whether the lock was acquired (and then released) */
        boolean run(long waitMs) throws InterruptedException;
    }

    /** Runs the rounds; asserts each got in, within the bounds, with the load still going and no overlap. */
    private void assertRoundsGetIn(String who, AtomicLong otherSide, Round round) throws InterruptedException {
        long[] waits = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            awaitProgress(otherSide, LOAD_BETWEEN_ROUNDS, "the load should be running before round " + i);
            long start = System.nanoTime();
            boolean in = round.run(ROUND_WAIT_MS);
            waits[i] = Await.millisSince(start);
            assertThat(in).as("%s, round %d: got in within %d ms (waits so far %s; %d writes, %d reads)", who, i,
                    ROUND_WAIT_MS, Arrays.toString(Arrays.copyOf(waits, i + 1)), writes.get(), reads.get()).isTrue();
        }
        long[] sorted = waits.clone();
        Arrays.sort(sorted);
        System.out.printf("%s: waits %s ms (median %d), %d writes, %d reads%n", who, Arrays.toString(waits),
                sorted[ROUNDS / 2], writes.get(), reads.get());
        assertThat(sorted[ROUNDS - 1]).as("%s: longest wait of %s ms", who, Arrays.toString(waits))
                .isLessThanOrEqualTo(ROUND_BOUND_MS);
        assertThat(sorted[ROUNDS / 2]).as("%s: median wait of %s ms", who, Arrays.toString(waits))
                .isLessThanOrEqualTo(MEDIAN_BOUND_MS);
        awaitProgress(otherSide, LOAD_BETWEEN_ROUNDS, "the load should still run after the rounds");
        stopLoad();
        assertThat(overlaps.get()).as("a reader inside with a writer, or two writers").isZero();
    }

    private Round readRounds(LockClient client) {
        used.add(client);
        Lock lock = client.getReadWriteLock(name).readLock();
        return waitMs -> {
            if (!lock.tryLock(waitMs, MILLISECONDS)) {
                return false;
            }
            try {
                reading(1);
            } finally {
                lock.unlock();
            }
            return true;
        };
    }

    private Round writeRounds(LockClient client) {
        used.add(client);
        Lock lock = client.getReadWriteLock(name).writeLock();
        return waitMs -> {
            if (!lock.tryLock(waitMs, MILLISECONDS)) {
                return false;
            }
            try {
                if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                    overlaps.incrementAndGet();
                }
                writersInside.decrementAndGet();
            } finally {
                lock.unlock();
            }
            return true;
        };
    }

    // ------------------------------------------------------------------------------------------ readers get in

    @Test
    void aReaderOfAThirdClientGetsInBehindWritersOfTwoClientsThatNeverStop(LockClient a, LockClient b,
                                                                          LockClient c) throws Exception {
        startWriters(a, 2, 0);
        startWriters(b, 2, 0);
        assertRoundsGetIn("reader of a third client", writes, readRounds(c));
    }

    @Test
    void aReaderGetsInBehindWritersThatNeverStopWithoutLocalHandOffs(LockClient c) throws Exception {
        startWriters(withoutHandOffs(), 2, 0);
        startWriters(withoutHandOffs(), 2, 0);
        assertRoundsGetIn("reader behind writers without hand-offs", writes, readRounds(c));
    }

    /** The reader waits in its client's local line behind that client's writers (and in Redis behind the other's). */
    @Test
    void aReaderOfAWritingClientGetsInBehindItsOwnAndAnotherClientsWriters(LockClient a, LockClient b)
            throws Exception {
        startWriters(a, 2, 0);
        startWriters(b, 2, 0);
        assertRoundsGetIn("reader of a writing client", writes, readRounds(a));
    }

    // ------------------------------------------------------------------------------------------ writers get in

    @Test
    void aWriterOfAThirdClientGetsInBehindReadersOfTwoClientsThatNeverStop(LockClient a, LockClient b,
                                                                          LockClient c) throws Exception {
        startReaders(a, 3, 5);
        startReaders(b, 3, 5);
        assertRoundsGetIn("writer of a third client", reads, writeRounds(c));
    }

    @Test
    void aWriterOfAReadingClientGetsInBehindItsOwnAndAnotherClientsReaders(LockClient a, LockClient b)
            throws Exception {
        startReaders(a, 3, 5);
        startReaders(b, 3, 5);
        assertRoundsGetIn("writer of a reading client", reads, writeRounds(a));
    }

    // ------------------------------------------------------------------------------------------ a reader's mark

    private String marks() {
        return "dlock_rwlock_writers:{" + name + "}";
    }

    /**
     * A reader refused by a write hold marks itself; when it gives up, its mark goes with it, so a writer that waits
     * behind the same write hold gets in at its release (the mark would hold it back for two thirds of the watchdog
     * timeout otherwise).
     */
    @Test
    void aReaderThatGivesUpTakesItsMarkAlongAndTheNextWriterGetsIn(LockClient a, LockClient b, LockClient c)
            throws Exception {
        used.addAll(List.of(a, b, c));
        Lock holder = a.getReadWriteLock(name).writeLock();
        holder.lock();
        Lock reader = c.getReadWriteLock(name).readLock();
        Future<Boolean> gaveUp = workers.submit(() -> reader.tryLock(1500, MILLISECONDS));
        Await.until(Leaks.SETTLE, () -> raw.sync().zrange(marks(), 0, -1).stream()
                .anyMatch(mark -> !mark.endsWith(":write")), "the waiting reader should leave its mark");
        Lock next = b.getReadWriteLock(name).writeLock();
        Future<Long> writer = workers.submit(() -> {
            next.lock();
            long at = System.nanoTime();
            next.unlock();
            return at;
        });
        assertThat(Workers.get(gaveUp, Duration.ofSeconds(10))).as("the reader's wait ran out behind the writer")
                .isFalse();
        // a wait that ran out while its last attempt was unanswered returns false by the deadline rule (DeadlineRule)
        // and withdraws the mark just after, once that attempt's answer is in
        Await.until(Leaks.SETTLE, () -> raw.sync().zrange(marks(), 0, -1).stream()
                .allMatch(mark -> mark.endsWith(":write")), "the reader's mark should go with it");
        long released = System.nanoTime();
        holder.unlock();
        long in = Workers.get(writer, Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(in - released).toMillis()).as("ms from the release to the next writer")
                .isLessThan(ROUND_BOUND_MS);
    }

    /** A mark left by a reader whose client died holds writers back until it expires, and no longer. */
    @Test
    void aMarkLeftByADeadReaderHoldsWritersBackOnlyUntilItExpires(LockClient a) {
        used.add(a);
        Lock write = a.getReadWriteLock(name).writeLock();
        assertThat(a.getReadWriteLock(name).writeLock().isLocked()).as("warm-up").isFalse();
        List<String> time = raw.sync().time();
        long markSet = System.nanoTime();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        raw.sync().zadd(marks(), nowMs + 800, "0a0a0a0a-dead-dead-dead-0a0a0a0a0a0a:1");
        raw.sync().pexpire(marks(), 800);

        assertThat(write.tryLock()).as("a free lock in the readers' turn").isFalse();
        write.lock();
        assertThat(Await.millisSince(markSet)).as("ms from the dead reader's mark to the writer getting in")
                .isBetween(700L, 2500L);
        write.unlock();
    }

    // ------------------------------------------------------------------------------------------ both at once

    /**
     * Readers and writers of two clients, all looping at once: the turns alternate, so both sides keep going (on the
     * unfixed code the readers stopped as soon as the writers had the lock).
     */
    @Test
    void readersAndWritersThatNeverStopBothKeepGettingIn(LockClient a, LockClient b) {
        startWriters(a, 2, 0);
        startWriters(b, 2, 0);
        startReaders(a, 2, 2);
        startReaders(b, 2, 2);
        for (int i = 0; i < 3; i++) {
            awaitProgress(writes, 30, "writes, period " + i);
            awaitProgress(reads, 30, "reads, period " + i);
        }
        stopLoad();
        assertThat(overlaps.get()).as("a reader inside with a writer, or two writers").isZero();
    }
}
