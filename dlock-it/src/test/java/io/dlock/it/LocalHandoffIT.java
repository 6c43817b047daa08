package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockOwner;
import io.dlock.TuningSettings;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.LocalQueues;
import io.dlock.it.support.OverlapDetector;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
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
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MICROSECONDS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owners of one client on one plain lock wait for each other inside the client and get the lock handed over in one
 * script call (the lock never free in between, nothing published), in arrival order, at most
 * {@link LockClientConfig#DEFAULT_LOCAL_HANDOFFS} times in a row, without ever giving up mutual exclusion or locking
 * other clients (dlock and Redisson) out, and without leaving anything behind when waiters time out, are interrupted
 * or are cancelled at the moment of a hand-off.
 *
 * <p>Round trips are counted on the server ({@code INFO commandstats}): every acquire, release and hand-off is one
 * script call ({@code EVALSHA}, or {@code EVAL} after a {@code NOSCRIPT}), so "waits without asking Redis" and
 * "handed over instead of released and taken again" are checked where they happen.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LocalHandoffIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class LocalHandoffIT {

    static final int WATCHDOG_MS = 3000;
    /** The longest a local waiter trusts the holder it waits behind before it asks Redis: a third of the watchdog. */
    private static final long RECHECK_MS = WATCHDOG_MS / 3;
    /** Watchdog of the holders' clients in the force-unlock tests: their recheck cannot explain a prompt entry. */
    static final int FORCE_WATCHDOG_MS = 6000;
    private static final long FORCE_RECHECK_MS = FORCE_WATCHDOG_MS / 3;
    /**
     * How soon a local waiter must get a lock that was force-unlocked from outside: half its recheck interval
     * ({@link #FORCE_RECHECK_MS}), so only the unlock message can explain it, with room for a loaded 2-core machine
     * (a scheduling pause of a few hundred ms in one of 20 rounds is no failure of the design).
     */
    private static final long FORCED_WAKE_UP_MS = FORCE_RECHECK_MS / 2;
    /** Room for scheduling on a slow machine, on top of a bound the design gives. */
    private static final long SLACK_MS = 700;
    private static final Duration TASK_BOUND = Duration.ofSeconds(20);
    /** Owner ids for async holders: far from any thread id of the test JVM. */
    private static final long HOLDER = 7_000_001;

    @RegisterExtension
    final TestOutcome outcome = new TestOutcome();

    private RedisServer server;
    private String name;
    private RawRedis raw;
    private Workers workers;
    private final List<LockClient> ownClients = new ArrayList<>();
    private final List<LockClient> checked = new ArrayList<>();
    private RedissonClient redisson;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        this.server = server;
        name = "it:LocalHandoffIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("handoff-worker");
    }

    @AfterEach
    void tearDown() {
        try {
            if (!outcome.failed()) {
                for (LockClient client : checked) {
                    Leaks.assertClientIdle(client);
                    LocalQueues.assertNoCohorts(client);
                }
                Leaks.assertNoSubscriptions(raw);
                assertThat(raw.keys()).as("keys left on the server").isEmpty();
            }
        } finally {
            workers.close();
            if (redisson != null) {
                redisson.shutdown(0, 5, SECONDS);
            }
            ownClients.forEach(LockClient::close);
            raw.close();
        }
    }

    // ------------------------------------------------------------------------------------------ one client

    @Test
    void threadsOfOneClientPassTheLockAlongWithFewerRoundTrips(LockClient a) {
        checked.add(a);
        Hammered run = hammer(a, 8, Duration.ofSeconds(2));
        run.assertExclusive();
        assertThat(run.perThread()).as("sections per thread (local waiters are served in order)")
                .allSatisfy(n -> assertThat(n).isGreaterThan(run.sections() / 8 / 4));
        // without hand-offs every section costs an acquire and a release (2 scripts) plus the attempts that failed
        assertThat((double) run.scripts() / run.sections()).as("script calls per critical section (%s)", run)
                .isLessThan(1.5);
        // a release publishes; a hand-off does not (at most one in DEFAULT_LOCAL_HANDOFFS + 1 goes through Redis)
        assertThat(run.publishes()).as("publishes (%s)", run).isLessThan(run.sections() / 4);
        assertFree();
    }

    @Test
    void withoutHandOffsTheSameLoadStillExcludesAndEverySectionGoesThroughRedis() {
        LockClient a = client(LockClientConfig.builder().redisUri(server.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS))
                .tuning(TuningSettings.builder().localHandoffs(0).build()));
        checked.add(a);
        Hammered run = hammer(a, 8, Duration.ofSeconds(1));
        run.assertExclusive();
        // the measure above can tell: each section is an acquire and a release at least
        assertThat(run.scripts()).as("script calls (%s)", run).isGreaterThanOrEqualTo(2 * run.sections());
        assertThat(run.publishes()).as("every release publishes (%s)", run).isGreaterThanOrEqualTo(run.sections());
        assertFree();
    }

    @Test
    void localWaitersEnterInArrivalOrderAndNeverAskRedisWhileWaiting(LockClient a) {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        // fixed leases throughout: no watchdog renewal adds script calls while they are counted
        lock.lock(60, SECONDS);
        List<String> order = new CopyOnWriteArrayList<>();
        OverlapDetector detector = new OverlapDetector();
        List<Future<?>> waiters = new ArrayList<>();
        long scriptsBefore = scriptCalls();
        long publishesBefore = calls("publish");
        List<String> names = List.of("B", "C", "D");
        for (int i = 0; i < names.size(); i++) {
            String who = names.get(i);
            waiters.add(workers.submit(() -> {
                lock.lock(60, SECONDS);
                try {
                    detector.inside(() -> order.add(who));
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            LocalQueues.awaitQueued(a, name, i + 1);
        }
        assertThat(scriptCalls()).as("script calls while B, C and D wait behind A").isEqualTo(scriptsBefore);
        // one subscription, shared by the local waiters, so that a force-unlock by another client reaches them
        Await.until(Leaks.SETTLE, () -> raw.subscribers(RawRedis.lockChannel(name)) == 1,
                () -> "subscribers while they wait locally: " + raw.subscribers(RawRedis.lockChannel(name)));

        lock.unlock();
        waiters.forEach(f -> Workers.get(f, TASK_BOUND));
        assertThat(order).containsExactly("B", "C", "D");
        assertThat(detector.maxInside()).isEqualTo(1);
        // A → B, B → C and C → D are hand-offs, D's unlock the one release: no acquire attempt at all
        assertThat(scriptCalls() - scriptsBefore).as("script calls from A's unlock to D's").isEqualTo(4);
        assertThat(calls("publish") - publishesBefore).as("publishes").isEqualTo(1);
        assertFree();
    }

    @Test
    void aHandOffKeepsTheLockHeldAndGivesTheReceiverItsOwnLease(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(60, SECONDS).get(5, SECONDS);
        CompletableFuture<Void> next = lock.as(LockOwner.of(HOLDER + 1)).lockAsync(2, SECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        try (RawRedis.Subscription channel = raw.subscribe(RawRedis.lockChannel(name))) {
            lock.as(LockOwner.of(HOLDER)).unlockAsync().get(5, SECONDS);
            next.get(5, SECONDS);
            assertThat(raw.hgetall(name)).isEqualTo(Map.of(RawRedis.field(a.getId(), HOLDER + 1), "1"));
            assertThat(raw.pttl(name)).as("the receiver's lease").isBetween(1L, 2000L);
            assertThat(channel.messages()).as("a hand-off publishes nothing").isEmpty();
            lock.as(LockOwner.of(HOLDER + 1)).unlockAsync().get(5, SECONDS);
            assertThat(channel.messages().poll(2, SECONDS)).as("the release does").isEqualTo("0");
        }
        assertFree();
    }

    @Test
    void tryLockWithoutWaitAnswersFromTheClientWhenAnotherOwnerHoldsTheLock(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(60, SECONDS).get(5, SECONDS);
        long before = callsOtherThanInfo();
        for (int i = 0; i < 50; i++) {
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.tryLockAsync().get(5, SECONDS)).isFalse();
            assertThat(lock.as(LockOwner.of(HOLDER + 1)).tryLockAsync(0, 60, SECONDS).get(5, SECONDS)).isFalse();
        }
        assertThat(callsOtherThanInfo()).as("commands sent for 150 tryLock() on a lock another owner holds")
                .isEqualTo(before);
        assertThat(Leaks.diagnostics(a).waiters()).isZero();

        // the holder itself re-enters through Redis
        assertThat(lock.as(LockOwner.of(HOLDER)).tryLockAsync(0, 60, SECONDS).get(5, SECONDS)).isTrue();
        assertThat(raw.hgetall(name)).containsEntry(RawRedis.field(a.getId(), HOLDER), "2");
        lock.as(LockOwner.of(HOLDER)).unlockAsync().get(5, SECONDS);
        lock.as(LockOwner.of(HOLDER)).unlockAsync().get(5, SECONDS);
        assertThat(lock.tryLock()).as("free again: the next attempt goes to Redis").isTrue();
        lock.unlock();
        assertFree();
    }

    @Test
    void aLocalWaiterGetsTheLockWhenTheHoldersLeaseRunsOut(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(300, MILLISECONDS).get(5, SECONDS);
        long start = System.nanoTime();
        assertThat(lock.tryLock(5, SECONDS)).isTrue();
        assertThat(Await.millisSince(start)).as("ms until tryLock(5 s) had the lock of a 300 ms lease")
                .isLessThan(300 + SLACK_MS);
        lock.unlock();

        lock.as(LockOwner.of(HOLDER + 1)).lockAsync(300, MILLISECONDS).get(5, SECONDS);
        start = System.nanoTime();
        lock.lock();
        assertThat(Await.millisSince(start)).as("ms until lock() had the lock of a 300 ms lease")
                .isLessThan(300 + SLACK_MS);
        lock.unlock();
        assertFree();
    }

    /**
     * A holder that lets its lease run out instead of unlocking (a common use of leases) must not leave the client's
     * knowledge of the lock behind: with many lock names used that way it would grow without bound.
     */
    @Test
    void aHolderThatLetsItsLeaseRunOutLeavesNoLocalStateBehind(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(200, MILLISECONDS).get(5, SECONDS);
        assertThat(LocalQueues.cohortCount(a)).isEqualTo(1);
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(name), "the lease should run out");
        Leaks.assertClientIdle(a);
        LocalQueues.assertNoCohorts(a);
    }

    // ------------------------------------------------------------------------------------------ holder lost it

    /**
     * A lock freed from outside (another client's force-unlock) publishes an unlock message; this client hears it
     * through the local waiters' subscription and checks the holder at once, so its local waiters get in within
     * {@link #FORCED_WAKE_UP_MS}, far less than the recheck ({@link #FORCE_RECHECK_MS}) that was their only way out
     * before. The holder is told of its loss at its next renewal, as before.
     */
    @Test
    void aWaiterBehindAHolderThatAnotherDlockClientForceUnlockedGetsInAtOnce(
            @ClientSettings(watchdogTimeoutMillis = FORCE_WATCHDOG_MS) LockClient a, LockClient b) throws Exception {
        checked.add(b);
        waiterGetsInAtOnceAfterAnOutsideForceUnlock(a, () -> assertThat(b.getLock(name).forceUnlock()).isTrue());
    }

    @Test
    void aWaiterBehindAHolderThatRedissonForceUnlockedGetsInAtOnce(
            @ClientSettings(watchdogTimeoutMillis = FORCE_WATCHDOG_MS) LockClient a) throws Exception {
        redisson = Redissons.connect(server, WATCHDOG_MS);
        waiterGetsInAtOnceAfterAnOutsideForceUnlock(a,
                () -> assertThat(redisson.getLock(name).forceUnlock()).isTrue());
    }

    /** What any other tool that frees a Redisson-layout lock does: {@code DEL} the hash, publish the unlock message. */
    @Test
    void aWaiterBehindAHolderWhoseKeyWasDeletedAndAnnouncedGetsInAtOnce(
            @ClientSettings(watchdogTimeoutMillis = FORCE_WATCHDOG_MS) LockClient a) throws Exception {
        waiterGetsInAtOnceAfterAnOutsideForceUnlock(a, () -> {
            assertThat(raw.sync().del(name)).isEqualTo(1L);
            raw.sync().publish(RawRedis.lockChannel(name), "0");
        });
    }

    /** Outside force-unlocks right after the waiters queued, while their subscription may still be on its way. */
    @Test
    void outsideForceUnlocksRightAfterWaitersQueuedAreNeverMissed(
            @ClientSettings(watchdogTimeoutMillis = FORCE_WATCHDOG_MS) LockClient a, LockClient b) throws Exception {
        checked.add(a);
        checked.add(b);
        DistributedLock lock = a.getLock(name);
        for (int round = 0; round < 20; round++) {
            long holder = HOLDER + round;
            lock.as(LockOwner.of(holder)).lockAsync(LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
            Future<Long> waiter = workers.submit(() -> {
                assertThat(lock.tryLock(5, SECONDS)).isTrue();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            });
            Await.until(Duration.ofSeconds(5), () -> LocalQueues.queued(a, name) == 1, "the waiter should queue");
            long forced = System.nanoTime();
            assertThat(b.getLock(name).forceUnlock()).isTrue();
            assertThat(Duration.ofNanos(Workers.get(waiter, TASK_BOUND) - forced).toMillis())
                    .as("round %d: ms until the local waiter had the lock", round).isLessThan(FORCED_WAKE_UP_MS);
            assertThat(Workers.failureOf(lock.as(LockOwner.of(holder)).unlockAsync(), TASK_BOUND))
                    .isInstanceOf(IllegalMonitorStateException.class);
        }
        assertFree();
    }

    private void waiterGetsInAtOnceAfterAnOutsideForceUnlock(LockClient a, ThrowingRunnable forceUnlock)
            throws Exception {
        checked.add(a);
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        OverlapDetector detector = new OverlapDetector();
        List<Future<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(workers.submit(() -> {
                assertThat(lock.tryLock(2 * FORCE_RECHECK_MS, MILLISECONDS)).isTrue();
                try {
                    detector.enter();
                    long at = System.nanoTime();
                    detector.exit();
                    return at;
                } finally {
                    lock.unlock();
                }
            }));
            LocalQueues.awaitQueued(a, name, i + 1);
        }

        long forced = System.nanoTime();
        forceUnlock.run();
        long firstIn = Long.MAX_VALUE;
        for (Future<Long> waiter : waiters) {
            firstIn = Math.min(firstIn, Workers.get(waiter, TASK_BOUND));
        }
        assertThat(Duration.ofNanos(firstIn - forced).toMillis()).as("ms until a local waiter had the lock")
                .isLessThan(FORCED_WAKE_UP_MS);
        assertThat(detector.maxInside()).isEqualTo(1);
        Await.until(Duration.ofMillis(FORCE_RECHECK_MS + SLACK_MS), () -> !lost.isEmpty(),
                "the holder's lease-lost listener should be told at its next renewal");
        assertThat(lost).singleElement().satisfies(event -> {
            assertThat(event.ownerId()).isEqualTo(HOLDER);
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        });
        assertThat(Workers.failureOf(lock.as(LockOwner.of(HOLDER)).unlockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertFree();
    }

    /** A step of a test that may throw. */
    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * A bare {@code DEL} of a fixed-lease holder's key: nothing is published and the watchdog never checks a fixed
     * lease, so only the periodic recheck in Redis can tell the waiter that the lock is free (as a waiter of another
     * client only learns it when its TTL-bounded sleep ends).
     */
    @Test
    void aWaiterBehindAFixedLeaseHolderWhoseKeyWasDeletedGetsInWithinARecheck(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(20, SECONDS).get(5, SECONDS);
        Future<Long> waiter = workers.submit(() -> {
            assertThat(lock.tryLock(5, SECONDS)).as("tryLock(5 s) after the key was deleted").isTrue();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        LocalQueues.awaitQueued(a, name, 1);

        long deleted = System.nanoTime();
        raw.sync().del(name);
        long acquiredAt = Workers.get(waiter, TASK_BOUND);
        assertThat(Duration.ofNanos(acquiredAt - deleted).toMillis()).as("ms until the local waiter had the lock")
                .isLessThan(RECHECK_MS + SLACK_MS);
        assertThat(Workers.failureOf(lock.as(LockOwner.of(HOLDER)).unlockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertFree();
    }

    @Test
    void forceUnlockByTheSameClientLetsTheLocalWaitersInAtOnce(LockClient a) throws Exception {
        checked.add(a);
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        OverlapDetector detector = new OverlapDetector();
        List<Future<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiters.add(workers.submit(() -> {
                lock.lock();
                try {
                    detector.enter();
                    long at = System.nanoTime();
                    Thread.sleep(20);
                    detector.exit();
                    return at;
                } finally {
                    lock.unlock();
                }
            }));
            LocalQueues.awaitQueued(a, name, i + 1);
        }

        long forced = System.nanoTime();
        assertThat(lock.forceUnlock()).isTrue();
        for (Future<Long> waiter : waiters) {
            assertThat(Duration.ofNanos(Workers.get(waiter, TASK_BOUND) - forced).toMillis())
                    .as("ms until a local waiter had the lock after forceUnlock").isLessThan(500);
        }
        assertThat(detector.maxInside()).isEqualTo(1);
        assertThat(Workers.failureOf(lock.as(LockOwner.of(HOLDER)).unlockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        Await.during(Duration.ofMillis(RECHECK_MS + 200), lost::isEmpty,
                () -> "a force-unlock by the holder's own client is no loss: " + lost);
        assertFree();
    }

    // ------------------------------------------------------------------------------------------ leaving the queue

    @Test
    void localWaitersThatTimeOutOrAreInterruptedOrCancelledLeaveNothingBehind(LockClient a) throws Exception {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        lock.as(LockOwner.of(HOLDER)).lockAsync(60, SECONDS).get(5, SECONDS);

        long start = System.nanoTime();
        assertThat(lock.tryLock(200, MILLISECONDS)).isFalse();
        assertThat(Await.millisSince(start)).as("ms of tryLock(200 ms)").isBetween(195L, 200 + SLACK_MS);
        assertThat(LocalQueues.queued(a, name)).isZero();

        AtomicReference<Thread> thread = new AtomicReference<>();
        Future<Throwable> interrupted = workers.submit(() -> {
            thread.set(Thread.currentThread());
            try {
                lock.lockInterruptibly();
                lock.unlock();
                return null;
            } catch (InterruptedException e) {
                return e;
            }
        });
        LocalQueues.awaitQueued(a, name, 1);
        thread.get().interrupt();
        assertThat(Workers.get(interrupted, TASK_BOUND)).isInstanceOf(InterruptedException.class);
        assertThat(LocalQueues.queued(a, name)).isZero();

        CompletableFuture<Boolean> cancelled = lock.as(LockOwner.of(HOLDER + 1)).tryLockAsync(30, 60, SECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        assertThat(cancelled.cancel(true)).isTrue();
        LocalQueues.awaitQueued(a, name, 0);
        Leaks.awaitWaiters(a, 0);

        // nobody is left to hand the lock to: the release goes through Redis and frees it
        long publishesBefore = calls("publish");
        lock.as(LockOwner.of(HOLDER)).unlockAsync().get(5, SECONDS);
        assertThat(lock.isLocked()).isFalse();
        assertThat(calls("publish") - publishesBefore).isEqualTo(1);
        assertFree();
    }

    /**
     * Waiters give up (time out, are cancelled) right around the hand-offs: whoever a hand-off picks after it gave up
     * must pass the lock on, or the lock stays held (renewed by the watchdog) by an owner nobody will unlock.
     */
    @Test
    void waitersGivingUpAroundHandOffsLeakNoHold(LockClient a) {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        OverlapDetector detector = new OverlapDetector();
        AtomicLong counter = new AtomicLong();
        AtomicLong sections = new AtomicLong();
        AtomicLong timedOut = new AtomicLong();
        AtomicLong cancelled = new AtomicLong();
        AtomicLong nextOwner = new AtomicLong(HOLDER + 1000);
        AtomicBoolean stop = new AtomicBoolean();
        Runnable section = () -> detector.inside(() -> {
            long v = counter.get();
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(20_000, 200_000));
            counter.set(v + 1);
            sections.incrementAndGet();
        });
        List<Future<?>> tasks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tasks.add(workers.submit(lockUnlockUntil(stop, lock, section)));
        }
        for (int i = 0; i < 6; i++) {
            tasks.add(workers.submit(() -> {
                while (!stop.get()) {
                    // a wait of under a millisecond whose attempt Redis answers late answers false (the deadline
                    // rule; a LockException only when Redis is unavailable, which fails the test): its late grant must
                    // leave no hold behind, which is what the test checks
                    if (lock.tryLock(ThreadLocalRandom.current().nextLong(100, 2_000), MICROSECONDS)) {
                        try {
                            section.run();
                        } finally {
                            lock.unlock();
                        }
                    } else {
                        timedOut.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (int i = 0; i < 3; i++) {
            tasks.add(workers.submit(() -> {
                while (!stop.get()) {
                    DistributedLock byOwner = lock.as(LockOwner.of(nextOwner.incrementAndGet()));
                    CompletableFuture<Boolean> attempt = byOwner.tryLockAsync(50, LEASE_WATCHDOG, MILLISECONDS);
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 1_500_000));
                    if (attempt.cancel(true)) {
                        cancelled.incrementAndGet();
                    } else if (attempt.join()) {
                        try {
                            section.run();
                        } finally {
                            byOwner.unlockAsync().join();
                        }
                    } else {
                        timedOut.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        Await.until(Duration.ofSeconds(10), () -> sections.get() > 300 && timedOut.get() > 50 && cancelled.get() > 50,
                () -> "not enough happened: sections " + sections + ", timed out " + timedOut + ", cancelled "
                        + cancelled);
        LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
        stop.set(true);
        tasks.forEach(task -> Workers.get(task, TASK_BOUND));

        assertThat(detector.maxInside()).isEqualTo(1);
        assertThat(counter.get()).as("counter (non-atomic increments under the lock)").isEqualTo(sections.get());
        Await.until(Duration.ofSeconds(2), () -> !lock.isLocked(),
                () -> "the lock is still held, by " + raw.hgetall(name) + " (a hold leaked to a waiter that gave up)");
        assertFree();
    }

    @Test
    void asyncOwnersContendAndPassTheLockAlong(LockClient a) {
        checked.add(a);
        DistributedLock lock = a.getLock(name);
        OverlapDetector detector = new OverlapDetector();
        AtomicLong counter = new AtomicLong();
        int owners = 6;
        int rounds = 100;
        long scriptsBefore = scriptCalls();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int o = 0; o < owners; o++) {
            DistributedLock byOwner = lock.as(LockOwner.of(HOLDER + 100 + o));
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (int r = 0; r < rounds; r++) {
                chain = chain.thenCompose(ignored -> byOwner.lockAsync(LEASE_WATCHDOG, MILLISECONDS))
                        .thenRun(() -> detector.inside(() -> {
                            long v = counter.get();
                            Thread.onSpinWait();
                            counter.set(v + 1);
                        }))
                        .thenCompose(ignored -> byOwner.unlockAsync());
            }
            chains.add(chain);
        }
        CompletableFuture.allOf(chains.toArray(new CompletableFuture<?>[0])).orTimeout(30, SECONDS).join();
        long scripts = scriptCalls() - scriptsBefore;

        assertThat(detector.maxInside()).isEqualTo(1);
        assertThat(counter.get()).isEqualTo((long) owners * rounds);
        assertThat((double) scripts / (owners * rounds)).as("script calls per section (%d scripts)", scripts)
                .isLessThan(1.5);
        assertFree();
    }

    // ------------------------------------------------------------------------------------------ other clients

    @Test
    void otherClientsGetTheLockWhileOneClientsThreadsKeepPassingItAlong(LockClient a, LockClient b) {
        otherClientsGetIn(a, b);
    }

    @Test
    void otherClientsGetTheLockWithoutHandOffsToo(LockClient b) {
        LockClient a = client(LockClientConfig.builder().redisUri(server.uri())
                .watchdogTimeout(Duration.ofMillis(WATCHDOG_MS))
                .tuning(TuningSettings.builder().localHandoffs(0).build()));
        otherClientsGetIn(a, b);
    }

    /**
     * Client {@code a} hammers the lock with several threads; a dlock client {@code b} and a Redisson client each ask
     * for it with {@code tryLock(10 s)} and must get it within a few seconds, while {@code a} goes on.
     */
    private void otherClientsGetIn(LockClient a, LockClient b) {
        checked.add(a);
        checked.add(b);
        redisson = Redissons.connect(server, WATCHDOG_MS);
        DistributedLock ours = a.getLock(name);
        OverlapDetector detector = new OverlapDetector();
        AtomicLong counter = new AtomicLong();
        AtomicLong sections = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        Runnable section = () -> detector.inside(() -> {
            long v = counter.get();
            LockSupport.parkNanos(50_000);
            counter.set(v + 1);
            sections.incrementAndGet();
        });
        List<Future<?>> hammering = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            hammering.add(workers.submit(lockUnlockUntil(stop, ours, section)));
        }
        Await.until(Duration.ofSeconds(10), () -> sections.get() > 100, "client a should be busy with the lock");

        DistributedLock theirs = b.getLock(name);
        RLock redissons = redisson.getLock(name);
        CountDownLatch go = new CountDownLatch(1);
        Future<Long> dlockWait = workers.submit(() -> {
            go.await();
            long start = System.nanoTime();
            assertThat(theirs.tryLock(10, SECONDS)).as("client b's tryLock(10 s)").isTrue();
            long waited = Await.millisSince(start);
            try {
                section.run();
            } finally {
                theirs.unlock();
            }
            return waited;
        });
        Future<Long> redissonWait = workers.submit(() -> {
            go.await();
            long start = System.nanoTime();
            assertThat(redissons.tryLock(10, SECONDS)).as("Redisson's tryLock(10 s)").isTrue();
            long waited = Await.millisSince(start);
            try {
                section.run();
            } finally {
                redissons.unlock();
            }
            return waited;
        });
        go.countDown();
        long dlockWaited = Workers.get(dlockWait, TASK_BOUND);
        long redissonWaited = Workers.get(redissonWait, TASK_BOUND);
        long sectionsAfterThem = sections.get();
        Await.until(Duration.ofSeconds(5), () -> sections.get() > sectionsAfterThem + 50,
                "client a should go on after the others had their turn");
        stop.set(true);
        hammering.forEach(task -> Workers.get(task, TASK_BOUND));

        assertThat(dlockWaited).as("ms client b waited").isLessThan(3000);
        assertThat(redissonWaited).as("ms Redisson waited").isLessThan(3000);
        assertThat(detector.maxInside()).isEqualTo(1);
        assertThat(counter.get()).isEqualTo(sections.get());
        assertFree();
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** What {@link #hammer} saw. */
    private record Hammered(long sections, long counter, int maxInside, List<Long> perThread, long scripts,
                            long publishes) {
        void assertExclusive() {
            assertThat(maxInside).as("most threads inside at once").isEqualTo(1);
            assertThat(counter).as("plain counter after %d sections", sections).isEqualTo(sections);
        }
    }

    /** Not volatile, not atomic: only the lock orders its reads and writes. */
    private static final class PlainCounter {
        long value;
    }

    /** {@code threads} threads of {@code client} lock, increment a plain counter and unlock, for {@code duration}. */
    private Hammered hammer(LockClient client, int threads, Duration duration) {
        DistributedLock lock = client.getLock(name);
        OverlapDetector detector = new OverlapDetector();
        PlainCounter counter = new PlainCounter();
        CyclicBarrier start = new CyclicBarrier(threads);
        long scriptsBefore = scriptCalls();
        long publishesBefore = calls("publish");
        List<Future<Long>> tasks = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            tasks.add(workers.submit(() -> {
                start.await();
                long end = System.nanoTime() + duration.toNanos();
                long mine = 0;
                while (System.nanoTime() - end < 0) {
                    lock.lock();
                    try {
                        detector.enter();
                        try {
                            long v = counter.value;
                            Thread.onSpinWait();
                            counter.value = v + 1;
                        } finally {
                            detector.exit();
                        }
                    } finally {
                        lock.unlock();
                    }
                    mine++;
                }
                return mine;
            }));
        }
        List<Long> perThread = new ArrayList<>();
        tasks.forEach(task -> perThread.add(Workers.get(task, duration.plus(TASK_BOUND))));
        long sections = perThread.stream().mapToLong(Long::longValue).sum();
        long counted;
        lock.lock();
        try {
            counted = counter.value;
        } finally {
            lock.unlock();
        }
        return new Hammered(sections, counted, detector.maxInside(), perThread,
                scriptCalls() - scriptsBefore - 2, calls("publish") - publishesBefore - 1);
    }

    private LockClient client(LockClientConfig.Builder config) {
        LockClient client = LockClient.create(config.build());
        ownClients.add(client);
        return client;
    }

    private void assertFree() {
        assertThat(raw.exists(name)).as("key %s: %s", name, raw.hgetall(name)).isFalse();
    }

    /** A task that takes {@code lock}, runs {@code section} and releases it, over and over until {@code stop}. */
    private static Callable<Void> lockUnlockUntil(AtomicBoolean stop, Lock lock, Runnable section) {
        return () -> {
            while (!stop.get()) {
                lock.lock();
                try {
                    section.run();
                } finally {
                    lock.unlock();
                }
            }
            return null;
        };
    }

    /** Script calls so far: {@code EVALSHA} and {@code EVAL}. */
    private long scriptCalls() {
        return calls("evalsha") + calls("eval");
    }

    /** Calls of {@code command} so far, from {@code INFO commandstats} (Redis 7 counts those of scripts too). */
    private long calls(String command) {
        String prefix = "cmdstat_" + command + ":calls=";
        for (String line : raw.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    /** Calls of every command so far but {@code INFO} (which the counting itself sends). */
    private long callsOtherThanInfo() {
        long total = 0;
        for (String line : raw.sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")) {
                total += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return total;
    }
}
