package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.FairQueueWaiter;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
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
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.Lock;
import java.util.stream.IntStream;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * FIFO order of the fair lock across clients, JVMs and libraries: waiters are served in the order they queued (also
 * mixed with Redisson 4.7 fair-lock waiters); waiters that time out, are interrupted or are killed leave the line
 * without disturbing the others' order and delay the next one by no more than the documented bound; a live waiter
 * keeps its place however long it waits; 8 threads get equal shares; and what a contended cycle costs Redis.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class FairLockOrderIT {

    /** How long a waiter holds the lock once it has it: long enough to see an overlap, short for the test. */
    private static final long HOLD_MS = 20;

    private String name;
    private RawRedis raw;
    private Workers workers;
    private RedissonClient redisson;
    private final List<String> order = Collections.synchronizedList(new ArrayList<>());
    private final List<Future<?>> waiters = new ArrayList<>();
    private final AtomicLong inside = new AtomicLong();
    private final AtomicLong maxInside = new AtomicLong();

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:FairLockOrderIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("fair-order");
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            if (redisson != null) {
                redisson.shutdown(0, 5, SECONDS);
            }
        } finally {
            raw.close();
        }
    }

    private RedissonClient redisson(RedisServer server) {
        Config config = new Config();
        config.setLockWatchdogTimeout(5000);
        config.useSingleServer()
                .setAddress(server.uri())
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(8)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(4);
        redisson = Redisson.create(config);
        return redisson;
    }

    private String queueKey() {
        return RawRedis.fairQueue(name);
    }

    private List<String> queue() {
        return raw.sync().lrange(queueKey(), 0, -1);
    }

    /** How a waiter asks for the lock. */
    @FunctionalInterface
    private interface Acquire {
        void acquire(Lock lock) throws Exception;
    }

    private static final Acquire LOCK = Lock::lock;
    private static final Acquire TRY_LOCK = lock -> assertThat(lock.tryLock(30, SECONDS)).isTrue();
    private static final Acquire INTERRUPTIBLY = Lock::lockInterruptibly;
    /**
     * Redisson's timed wait in milliseconds: with a watchdog lease Redisson sends {@code tryLock(30, SECONDS)}'s wait
     * to its script as 30 ms (the unit is dropped), a slot that only lasts as long as the slack ahead of it.
     */
    private static final Acquire REDISSON_TRY_LOCK = lock -> assertThat(lock.tryLock(30_000, MILLISECONDS)).isTrue();

    /**
     * Starts a waiter on its own thread that takes {@code lock} with {@code how}, notes {@code label} in
     * {@link #order}, holds it {@link #HOLD_MS} and releases it; returns its owner field once it stands in the queue.
     */
    private String queueWaiter(String label, String clientId, Lock lock, Acquire how) {
        CompletableFuture<Long> thread = new CompletableFuture<>();
        waiters.add(workers.submit(() -> {
            thread.complete(Thread.currentThread().getId());
            how.acquire(lock);
            try {
                inCriticalSection(label);
            } finally {
                lock.unlock();
            }
            return null;
        }));
        String field = clientId + ":" + thread.join();
        awaitQueued(field);
        return field;
    }

    /** As {@link #queueWaiter}, with the async API of a view for an explicit owner id. */
    private String queueAsyncWaiter(String label, LockClient client, long ownerId) {
        DistributedLock lock = client.getFairLock(name).as(LockOwner.of(ownerId));
        CompletableFuture<Void> done = lock.lockAsync(LEASE_WATCHDOG, MILLISECONDS)
                .thenRun(() -> inCriticalSection(label))
                .thenCompose(ignored -> lock.unlockAsync());
        waiters.add(done);
        String field = client.getId() + ":" + ownerId;
        awaitQueued(field);
        return field;
    }

    private void inCriticalSection(String label) {
        long now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        order.add(label);
        try {
            Thread.sleep(HOLD_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inside.decrementAndGet();
        }
    }

    private void awaitQueued(String field) {
        Await.until(Leaks.SETTLE, () -> queue().contains(field), () -> field + " should be queued: " + queue());
    }

    private void awaitAllWaiters() {
        for (Future<?> waiter : waiters) {
            Workers.get(waiter, Duration.ofSeconds(20));
        }
    }

    private void assertNothingLeft(LockClient... clients) {
        for (LockClient client : clients) {
            Leaks.assertClientIdle(client);
        }
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
        Leaks.assertNoSubscriptions(raw);
    }

    // ------------------------------------------------------------------------------------------ FIFO

    @Test
    void waitersOfTwoClientsAreServedInTheOrderTheyQueued(LockClient a, LockClient b) {
        DistributedLock holder = a.getFairLock(name);
        holder.lock(60, SECONDS);
        List<String> expected = new ArrayList<>();
        List<LockClient> clients = List.of(a, b);
        List<Acquire> styles = List.of(LOCK, TRY_LOCK, INTERRUPTIBLY);
        for (int i = 0; i < 10; i++) {
            LockClient client = clients.get(i % 2);
            String label = "w" + i;
            if (i % 4 == 3) {
                queueAsyncWaiter(label, client, 7_000L + i);
            } else {
                queueWaiter(label, client.getId(), client.getFairLock(name), styles.get(i % 3));
            }
            expected.add(label);
        }
        assertThat(queue()).hasSize(10);

        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactlyElementsOf(expected);
        assertThat(maxInside.get()).as("most waiters inside at once").isEqualTo(1);
        assertNothingLeft(a, b);
    }

    @Test
    void redissonAndDlockWaitersShareOneLine(RedisServer server, LockClient a, LockClient b) throws Exception {
        RedissonClient theirs = redisson(server);
        // a Redisson holder, released from its own thread
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = workers.submit(() -> {
            RLock lock = theirs.getFairLock(name);
            lock.lock();
            held.countDown();
            assertThat(release.await(30, SECONDS)).isTrue();
            lock.unlock();
            return null;
        });
        assertThat(held.await(10, SECONDS)).isTrue();

        // dlock a, Redisson, dlock b, Redisson, …; every way of waiting on both sides
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String label = i % 2 == 1 ? "w" + i + "-redisson" : "w" + i;
            switch (i % 4) {
                case 0 -> queueWaiter(label, a.getId(), a.getFairLock(name), i % 8 == 0 ? LOCK : TRY_LOCK);
                case 2 -> queueWaiter(label, b.getId(), b.getFairLock(name), i % 8 == 2 ? INTERRUPTIBLY : LOCK);
                default -> queueWaiter(label, theirs.getId(), theirs.getFairLock(name),
                        i % 3 == 0 ? REDISSON_TRY_LOCK : LOCK);
            }
            expected.add(label);
        }
        assertThat(queue()).hasSize(10);

        release.countDown();
        Workers.get(holder, Duration.ofSeconds(10));
        awaitAllWaiters();
        assertThat(order).containsExactlyElementsOf(expected);
        assertThat(maxInside.get()).as("most waiters inside at once").isEqualTo(1);
        assertNothingLeft(a, b);
    }

    // ------------------------------------------------------------------------------------------ queue keys' TTL

    private String timeoutsKey() {
        return "redisson_lock_timeout:{" + name + "}";
    }

    /**
     * A waiter killed in line, and nobody touches the name again: the queue and the deadlines expire by themselves
     * one slot after the latest deadline they hold, instead of staying in Redis forever (one leak per lock name).
     */
    @Test
    @ClientSettings(fairLockWaitTimeoutMillis = SHORT_SLOT_MS, watchdogTimeoutMillis = 1000)
    void theQueueKeysOfAWaiterKilledInLineExpireByThemselves(RedisServer server, LockClient a) throws Exception {
        String goKey = name + ":go";
        try (ChildJvm child = ChildJvm.start("FairLockOrderIT-dead-waiter", FairQueueWaiter.class, server.uri(),
                name, Long.toString(SHORT_SLOT_MS), goKey)) {
            DistributedLock holder = a.getFairLock(name);
            holder.lock();
            String[] ready = child.awaitLine("READY ", Duration.ofSeconds(30)).split(" ");
            String killed = ready[1] + ":" + ready[2];
            raw.sync().set(goKey, "1");
            awaitQueued(killed);
            raw.sync().del(goKey);
            child.kill();

            long untilLatestDeadline = raw.sync().zscore(timeoutsKey(), killed).longValue()
                    - System.currentTimeMillis();
            for (String key : List.of(queueKey(), timeoutsKey())) {
                assertThat(raw.sync().pttl(key)).as("PTTL of %s", key)
                        .isPositive()
                        .isGreaterThanOrEqualTo(untilLatestDeadline)
                        .isLessThanOrEqualTo(untilLatestDeadline + SHORT_SLOT_MS + 100);
            }
            holder.unlock();
        }
        Await.until(Duration.ofSeconds(8), () -> raw.sync().exists(queueKey(), timeoutsKey()) == 0,
                () -> "the dead waiter's queue keys should expire: " + raw.keys());
    }

    /**
     * A Redisson waiter behind a dlock waiter, with Redisson's 5-minute slot: the TTL that dlock's attempts keep on the
     * queue keys always reaches past the Redisson waiter's deadline, so the TTL never cuts its place in line.
     */
    @Test
    @ClientSettings(fairLockWaitTimeoutMillis = SHORT_SLOT_MS, watchdogTimeoutMillis = 1000)
    void theQueueKeysOutliveTheDeadlineOfARedissonWaiterBehind(RedisServer server, LockClient a, LockClient b) {
        DistributedLock holder = a.getFairLock(name);
        holder.lock();
        String ours = queueWaiter("dlock", b.getId(), b.getFairLock(name), LOCK);
        RedissonClient theirs = redisson(server);
        RLock redissonLock = theirs.getFairLock(name);
        waiters.add(workers.submit(() -> {
            redissonLock.lock();
            try {
                inCriticalSection("redisson");
            } finally {
                redissonLock.unlock();
            }
            return null;
        }));
        Await.until(Leaks.SETTLE, () -> queue().size() == 2, () -> "the Redisson waiter should queue: " + queue());
        String redissonField = queue().get(1);
        // the dlock waiter attempts again at least once per lease of the holder (1 s): after that the TTL covers both
        Await.until(Duration.ofSeconds(5), () -> {
            double deadline = raw.sync().zscore(timeoutsKey(), redissonField);
            long left = (long) deadline - System.currentTimeMillis();
            return raw.sync().pttl(queueKey()) >= left && raw.sync().pttl(timeoutsKey()) >= left;
        }, () -> "the queue keys' TTL should reach the Redisson waiter's deadline");
        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactly("dlock", "redisson");
        assertThat(queue()).doesNotContain(ours, redissonField);
    }

    // ------------------------------------------------------------------------------------------ leaving the line

    /** The slot of the waiters in this test, and so the bound on what a killed one costs the next. */
    private static final long SHORT_SLOT_MS = 1500;

    /**
     * With a short watchdog lease for the holder: a new line's first deadline counts the holder's remaining lease (as
     * Redisson's arithmetic does), and this test is about the slot.
     */
    @Test
    @ClientSettings(fairLockWaitTimeoutMillis = SHORT_SLOT_MS, watchdogTimeoutMillis = 1000)
    void waitersThatLeaveAreRemovedAndTheNextIsServedWithinTheBound(RedisServer server, LockClient a, LockClient b)
            throws Exception {
        String goKey = name + ":go";
        try (ChildJvm child = ChildJvm.start("FairLockOrderIT-killed-waiter", FairQueueWaiter.class, server.uri(),
                name, Long.toString(SHORT_SLOT_MS), goKey)) {
            DistributedLock holder = a.getFairLock(name);
            holder.lock();

            String w0 = queueWaiter("w0", b.getId(), b.getFairLock(name), LOCK);

            String[] ready = child.awaitLine("READY ", Duration.ofSeconds(30)).split(" ");
            String killed = ready[1] + ":" + ready[2];
            raw.sync().set(goKey, "1");
            awaitQueued(killed);
            raw.sync().del(goKey);

            // gives up after 1 s, while the holder still holds
            CompletableFuture<Long> timedOutThread = new CompletableFuture<>();
            DistributedLock timedOutLock = a.getFairLock(name);
            Future<Boolean> timedOut = workers.submit(() -> {
                timedOutThread.complete(Thread.currentThread().getId());
                return timedOutLock.tryLock(1000, MILLISECONDS);
            });
            String w2 = a.getId() + ":" + timedOutThread.join();
            awaitQueued(w2);

            CompletableFuture<Thread> interruptedThread = new CompletableFuture<>();
            DistributedLock interruptedLock = b.getFairLock(name);
            Future<Throwable> interrupted = workers.submit(() -> {
                interruptedThread.complete(Thread.currentThread());
                try {
                    interruptedLock.lockInterruptibly();
                    interruptedLock.unlock();
                    return null;
                } catch (InterruptedException e) {
                    return e;
                }
            });
            String w3 = b.getId() + ":" + interruptedThread.join().getId();
            awaitQueued(w3);

            AtomicLong w4AcquiredAt = new AtomicLong();
            DistributedLock w4Lock = a.getFairLock(name);
            CompletableFuture<Long> w4Thread = new CompletableFuture<>();
            waiters.add(workers.submit(() -> {
                w4Thread.complete(Thread.currentThread().getId());
                w4Lock.lock();
                try {
                    w4AcquiredAt.set(System.nanoTime());
                    inCriticalSection("w4");
                } finally {
                    w4Lock.unlock();
                }
                return null;
            }));
            String w4 = a.getId() + ":" + w4Thread.join();
            awaitQueued(w4);
            String w5 = queueWaiter("w5", b.getId(), b.getFairLock(name), LOCK);
            assertThat(queue()).containsExactly(w0, killed, w2, w3, w4, w5);

            assertThat(Workers.get(timedOut, Duration.ofSeconds(5))).as("tryLock(1 s) while held").isFalse();
            Await.until(Leaks.SETTLE, () -> queue().equals(List.of(w0, killed, w3, w4, w5)),
                    () -> "the timed-out waiter should leave, the others keep their order: " + queue());

            interruptedThread.join().interrupt();
            assertThat(Workers.get(interrupted, Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
            assertThat(queue()).as("the interrupted waiter left before lockInterruptibly threw")
                    .containsExactly(w0, killed, w4, w5);

            long killedAt = System.nanoTime();
            child.kill();
            holder.unlock();
            awaitAllWaiters();

            assertThat(order).containsExactly("w0", "w4", "w5");
            long servedAfterKill = Duration.ofNanos(w4AcquiredAt.get() - killedAt).toMillis();
            System.out.printf("fair lock: the waiter behind a killed one was served %d ms after the kill "
                    + "(bound: the slot, %d ms)%n", servedAfterKill, SHORT_SLOT_MS);
            assertThat(servedAfterKill).as("ms from the kill until the next live waiter had the lock")
                    .isLessThan(SHORT_SLOT_MS + 1000);
            assertThat(maxInside.get()).isEqualTo(1);
            assertNothingLeft(a, b);
        }
    }

    // ------------------------------------------------------------------------------------------ keeping the place

    private static final long TINY_SLOT_MS = 600;

    /**
     * The holder's watchdog lease is short too (renewed while it holds), so that the deadlines the waiters got when
     * they queued (the holder's PTTL plus one slot each, as in Redisson) run out long before it lets go.
     */
    @Test
    @ClientSettings(fairLockWaitTimeoutMillis = TINY_SLOT_MS, watchdogTimeoutMillis = 500)
    void aLiveWaiterKeepsItsPlacePastFairLockWaitTimeout(LockClient a, LockClient b) {
        DistributedLock holder = a.getFairLock(name);
        holder.lock();
        String first = queueWaiter("first", b.getId(), b.getFairLock(name), LOCK);
        String second = queueWaiter("second", a.getId(), a.getFairLock(name), INTERRUPTIBLY);

        // five slots: a Redisson waiter would have been dropped from the head after its first (plus the lease)
        Await.during(Duration.ofMillis(5 * TINY_SLOT_MS), () -> queue().equals(List.of(first, second)),
                () -> "the waiters should keep their places: " + queue());
        holder.unlock();
        awaitAllWaiters();
        assertThat(order).containsExactly("first", "second");
        assertNothingLeft(a, b);
    }

    // ------------------------------------------------------------------------------------------ fairness and cost

    private static final int THREADS = 8;

    @Test
    void eightThreadsGetEqualSharesAndACycleCostsFewCommands(RedisServer server, LockClient a) throws Exception {
        Map<String, Long> uncontended = uncontendedCycle(a.getFairLock(name + ":uncontended"));
        assertThat(uncontended.get("evalsha")).as("uncontended lock + unlock: two script calls").isEqualTo(2L);

        Run ours = contend(i -> a.getFairLock(name), 100, 800);
        long mean = ours.acquisitions() / THREADS;
        for (int i = 0; i < THREADS; i++) {
            assertThat(ours.perThread().get(i)).as("acquisitions of thread %d (mean %d, all %s)", i, mean,
                    ours.perThread()).isBetween(mean - mean / 10, mean + mean / 10);
        }
        double perCycle = (double) ours.commands() / ours.acquisitions();
        System.out.printf("fair lock, %d threads, 1 JVM: %.1f Redis commands per contended acquire+release "
                        + "(scripts' inner commands included; %d cycles), shares %s: %s%n", THREADS, perCycle,
                ours.acquisitions(), ours.perThread(), ours.byCommand());
        System.out.printf("fair lock, uncontended acquire+release: %d commands: %s%n",
                uncontended.values().stream().mapToLong(Long::longValue).sum(), uncontended);
        assertThat(perCycle).as("commands per contended cycle").isLessThan(61);
        Leaks.assertClientIdle(a);

        // the same load on Redisson's fair lock, for comparison (printed, not asserted)
        RedissonClient theirs = redisson(server);
        Run incumbent = contend(i -> theirs.getFairLock(name + ":redisson"), 100, 400);
        System.out.printf("Redisson 4.7 fair lock, same load: %.1f commands per contended cycle (%d cycles), "
                        + "shares %s: %s%n", (double) incumbent.commands() / incumbent.acquisitions(),
                incumbent.acquisitions(), incumbent.perThread(), incumbent.byCommand());
    }

    private record Run(long acquisitions, List<Long> perThread, long commands, Map<String, Long> byCommand) {
    }

    private interface LockFactory {
        Lock lock(int thread);
    }

    /**
     * {@value #THREADS} threads lock and unlock in a loop; after {@code warmUp} acquisitions in all, counts
     * acquisitions per thread and the server's commands over the next {@code measured}.
     */
    private Run contend(LockFactory locks, int warmUp, int measured) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong total = new AtomicLong();
        AtomicLongArray perThread = new AtomicLongArray(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            loops.add(workers.submit(() -> {
                Lock lock = locks.lock(thread);
                start.await(10, SECONDS);
                while (!stop.get()) {
                    lock.lock();
                    try {
                        perThread.incrementAndGet(thread);
                        total.incrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        try {
            Await.until(Duration.ofSeconds(20), () -> total.get() >= warmUp, "warm-up acquisitions");
            raw.sync().configResetstat();
            long[] before = snapshot(perThread);
            long totalBefore = total.get();
            Await.until(Duration.ofSeconds(30), () -> total.get() >= totalBefore + measured,
                    () -> measured + " acquisitions, got " + (total.get() - totalBefore));
            Map<String, Long> calls = commandCalls();
            long[] after = snapshot(perThread);
            long acquisitions = total.get() - totalBefore;
            List<Long> shares = IntStream.range(0, THREADS).mapToObj(i -> after[i] - before[i]).toList();
            return new Run(acquisitions, shares, calls.values().stream().mapToLong(Long::longValue).sum(), calls);
        } finally {
            stop.set(true);
            for (Future<?> loop : loops) {
                Workers.get(loop, Duration.ofSeconds(20));
            }
        }
    }

    private static long[] snapshot(AtomicLongArray counts) {
        long[] copy = new long[counts.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = counts.get(i);
        }
        return copy;
    }

    private Map<String, Long> uncontendedCycle(DistributedLock lock) {
        lock.lock();
        lock.unlock();
        raw.sync().configResetstat();
        lock.lock();
        lock.unlock();
        return commandCalls();
    }

    /** Calls per command since the last reset (commands run by scripts included), without this test's INFO. */
    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : raw.sync().info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            String command = line.substring("cmdstat_".length(), line.indexOf(':'));
            if (command.equals("info") || command.startsWith("config")) {
                continue;
            }
            String rest = line.substring(line.indexOf("calls=") + 6);
            calls.put(command, Long.parseLong(rest.substring(0, rest.indexOf(','))));
        }
        return calls;
    }
}
