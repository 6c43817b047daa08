package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.TestOutcome;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static io.dlock.DistributedLock.TTL_NOT_LOCKED;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The read-write lock's own behaviour against a real Redis: sharing, exclusion, prompt wake-ups, re-entry, downgrade,
 * refused upgrade, writer preference among dlock clients, both sides' views, forceUnlock and the read watchdog.
 *
 * <p>Where a wake-up must be prompt, holders use 60 s leases and waiting writers run on clients with a 30 s watchdog
 * (so they re-attempt only every 10 s by themselves): only the unlock message can explain a quick entry. After every
 * passing test the clients must be idle and the server empty (no hash, timeout key or writer mark left).
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = ReadWriteLockIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class ReadWriteLockIT {
    static final int WATCHDOG_MS = 1500;
    private static final long WAKE_UP_MS = 500;
    private static final long AT_ONCE_MS = 250;
    private static final Duration TASK_BOUND = Duration.ofSeconds(10);

    @RegisterExtension
    final TestOutcome outcome = new TestOutcome();

    private String name;
    private RawRedis raw;
    private Workers workers;
    private final Set<LockClient> usedClients = Collections.newSetFromMap(new IdentityHashMap<>());

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:ReadWriteLockIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("rw-worker");
    }

    @AfterEach
    void checkNothingLeaked() {
        try {
            if (!outcome.failed()) {
                for (LockClient client : usedClients) {
                    Leaks.assertClientIdle(client);
                }
                Leaks.assertNoSubscriptions(raw);
                assertThat(raw.keys()).as("keys left on the server").isEmpty();
            }
        } finally {
            workers.close();
            raw.close();
        }
    }

    private DistributedReadWriteLock on(LockClient client) {
        usedClients.add(client);
        return client.getReadWriteLock(name);
    }

    private static long tid() {
        return Thread.currentThread().getId();
    }

    private static String reader(LockClient client, long ownerId) {
        return RawRedis.field(client.getId(), ownerId);
    }

    private static String writer(LockClient client, long ownerId) {
        return reader(client, ownerId) + ":write";
    }

    /** Redisson's per-hold timeout key: {@code {NAME}:<field>:rwlock_timeout:<n>}. */
    private static String timeoutKey(String lockName, String field, int n) {
        String root = lockName.contains("{") ? lockName : "{" + lockName + "}";
        return root + ":" + field + ":rwlock_timeout:" + n;
    }

    private String marks() {
        return "dlock_rwlock_writers:{" + name + "}";
    }

    private String channel() {
        return "redisson_rwlock:{" + name + "}";
    }

    // ------------------------------------------------------------------------------------------ sharing

    @Test
    void twoReadersShareAndAWriterGetsInRightAfterBoth(LockClient a, LockClient b,
                                                       @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient w)
            throws InterruptedException {
        long me = tid();
        DistributedLock readA = on(a).readLock();
        DistributedLock readB = on(b).readLock();
        readA.lock(60, SECONDS);
        assertThat(readB.tryLock(0, 60_000, MILLISECONDS)).as("a second client's reader shares").isTrue();

        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(a, me), "1", reader(b, me), "1"));
        assertThat(raw.pttl(timeoutKey(name, reader(a, me), 1))).isBetween(55_000L, 60_000L);
        assertThat(raw.pttl(timeoutKey(name, reader(b, me), 1))).isBetween(55_000L, 60_000L);
        assertThat(raw.pttl(name)).isBetween(55_000L, 60_000L);
        assertThat(readA.isLocked()).isTrue();
        assertThat(readB.isHeldByCurrentThread()).isTrue();

        DistributedLock write = on(w).writeLock();
        assertThat(write.tryLock()).isFalse();
        Future<Long> writer = workers.submit(() -> {
            write.lock();
            long at = System.nanoTime();
            write.unlock();
            return at;
        });
        Leaks.awaitWaiters(w, 1);
        Await.during(Duration.ofMillis(300), () -> !writer.isDone(), "the writer got in while two readers held");
        readA.unlock();
        Await.during(Duration.ofMillis(300), () -> !writer.isDone(), "the writer got in while a reader held");
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(b, me), "1"));
        assertThat(raw.exists(timeoutKey(name, reader(a, me), 1))).isFalse();

        long released = System.nanoTime();
        readB.unlock();
        long acquiredAt = Workers.get(writer, TASK_BOUND);
        assertThat(Duration.ofNanos(acquiredAt - released).toMillis()).as("ms until the writer had the lock")
                .isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void theHashLivesExactlyAsLongAsItsLongestReadHold(LockClient a, LockClient b,
                                                      LockClient c) throws Exception {
        // the hash's TTL follows the longest live read hold: kept when a shorter one goes, lowered when the longest
        // goes, and the last one deletes the hash
        DistributedLock shortRead = on(a).readLock();
        DistributedLock longRead = on(b).readLock();
        DistributedLock laterRead = on(c).readLock();
        shortRead.lock(20, SECONDS);
        longRead.lock(60, SECONDS);
        assertThat(raw.pttl(name)).isBetween(55_000L, 60_000L);

        shortRead.unlock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(b, tid()), "1"));
        assertThat(raw.pttl(name)).as("kept: the longest hold stays").isBetween(55_000L, 60_000L);

        laterRead.lock(10, SECONDS);
        longRead.unlock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(c, tid()), "1"));
        assertThat(raw.pttl(name)).as("lowered to the one hold left").isBetween(5_000L, 10_000L);
        List<Long> ttls = raw.pttlsAtOnce(name, timeoutKey(name, reader(c, tid()), 1));
        assertThat(ttls.get(0)).as("the hash expires with that hold (Redis 6.2 may set it 1-2 ms later)")
                .isBetween(ttls.get(1), ttls.get(1) + 2);

        laterRead.unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    // ------------------------------------------------------------------------------------------ writer side

    @Test
    void aReaderWaitsForTheWriterWhoReentersReadsAndDowngrades(
            LockClient a, @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient b) throws Exception {
        long me = tid();
        DistributedReadWriteLock rw = on(a);
        DistributedLock write = rw.writeLock();
        DistributedLock read = rw.readLock();
        write.lock(60, SECONDS);

        DistributedLock otherReader = on(b).readLock();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        AtomicLong enteredAt = new AtomicLong();
        AtomicLong otherThread = new AtomicLong();
        Future<Void> waitingReader = workers.submit(() -> {
            otherThread.set(tid());
            otherReader.lock(60, SECONDS);
            enteredAt.set(System.nanoTime());
            entered.countDown();
            assertThat(leave.await(20, SECONDS)).isTrue();
            otherReader.unlock();
            return null;
        });
        Leaks.awaitWaiters(b, 1);

        // the writer re-enters, and takes read holds too
        write.lock(60, SECONDS);
        read.lock(60, SECONDS);
        write.lock(60, SECONDS);
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "write", writer(a, me), "3", reader(a, me), "1"));
        assertThat(raw.exists(timeoutKey(name, reader(a, me), 1))).isTrue();
        assertThat(write.getHoldCount()).isEqualTo(3);
        assertThat(read.getHoldCount()).isEqualTo(1);
        assertThat(write.isLocked()).isTrue();
        assertThat(read.isLocked()).as("the writer also reads").isTrue();
        write.unlock();
        write.unlock();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "write", writer(a, me), "1", reader(a, me), "1"));
        Await.during(Duration.ofMillis(300), () -> entered.getCount() == 1, "a reader got in while a writer held");

        // downgrade: the last write release keeps the read hold, and the waiting reader enters at once
        try (RawRedis.Subscription messages = raw.subscribe(channel())) {
            long released = System.nanoTime();
            write.unlock();
            assertThat(entered.await(5, SECONDS)).as("the waiting reader entered").isTrue();
            assertThat(Duration.ofNanos(enteredAt.get() - released).toMillis()).as("ms until the reader entered")
                    .isLessThan(WAKE_UP_MS);
            assertThat(messages.messages().poll(2, SECONDS)).as("message of the downgrade").isEqualTo("1");
        }
        long other = otherThread.get();
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(a, me), "1", reader(b, other), "1"));
        assertThat(read.isHeldByCurrentThread()).isTrue();
        assertThat(write.isLocked()).isFalse();
        assertThat(write.getHoldCount()).isZero();
        assertThat(raw.pttl(name)).as("TTL of the longest read hold").isBetween(55_000L, 60_000L);

        leave.countDown();
        Workers.get(waitingReader, TASK_BOUND);
        read.unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void upgradeFailsAtOnceAndKeepsTheReadHolds(LockClient a) {
        DistributedReadWriteLock rw = on(a);
        DistributedLock read = rw.readLock();
        DistributedLock write = rw.writeLock();
        read.lock();
        read.lock(10, SECONDS);
        Map<String, String> before = raw.hgetall(name);
        List<String> keysBefore = raw.keys();

        List<ThrowingCallable> attempts = List.of(write::lock, write::tryLock, () -> write.tryLock(5, SECONDS),
                () -> write.tryLock(5, 10, SECONDS), write::lockInterruptibly, () -> write.lock(10, SECONDS),
                () -> write.lockInterruptibly(10, SECONDS), () -> write.tryLock(Duration.ofSeconds(5)));
        for (ThrowingCallable attempt : attempts) {
            long t = System.nanoTime();
            assertThatThrownBy(attempt).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining(name);
            assertThat(Await.millisSince(t)).as("ms until the upgrade was refused").isLessThan(AT_ONCE_MS);
        }
        assertThat(Workers.failureOf(write.lockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(Workers.failureOf(write.tryLockAsync(5, LEASE_WATCHDOG, SECONDS), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class);

        assertThat(raw.hgetall(name)).as("the read holds are untouched").isEqualTo(before);
        assertThat(raw.keys()).as("no writer mark, nothing else").containsExactlyInAnyOrderElementsOf(keysBefore);
        assertThat(read.getHoldCount()).isEqualTo(2);
        assertThat(write.isHeldByCurrentThread()).isFalse();
        // another thread of the same client holds no read hold: it just cannot get in
        assertThat(workers.call(TASK_BOUND, () -> write.tryLock())).isFalse();

        read.unlock();
        read.unlock();
        assertThat(write.tryLock()).as("without read holds the write lock is granted").isTrue();
        write.unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    // ------------------------------------------------------------------------------------------ writers' turn

    @Test
    void aWaitingWriterGoesBeforeNewReaders(LockClient a,
                                            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient w,
                                            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient c)
            throws Exception {
        DistributedLock readA = on(a).readLock();
        readA.lock(60, SECONDS);

        DistributedLock write = on(w).writeLock();
        CountDownLatch writerIn = new CountDownLatch(1);
        CountDownLatch writerOut = new CountDownLatch(1);
        AtomicLong writerInAt = new AtomicLong();
        Future<Void> writer = workers.submit(() -> {
            write.lock();
            writerInAt.set(System.nanoTime());
            writerIn.countDown();
            assertThat(writerOut.await(20, SECONDS)).isTrue();
            write.unlock();
            return null;
        });
        Await.until(Leaks.SETTLE, () -> raw.exists(marks()), "the waiting writer should leave a mark");
        assertThat(raw.hgetall(name)).as("Redisson's view is unchanged").containsOnlyKeys("mode",
                reader(a, tid()));

        DistributedLock readC = on(c).readLock();
        assertThat(readC.tryLock()).as("a new reader while a writer waits").isFalse();
        long t = System.nanoTime();
        assertThat(readC.tryLock(300, MILLISECONDS)).as("a new reader waiting while a writer waits").isFalse();
        assertThat(Await.millisSince(t)).isBetween(300L, 1000L);
        assertThat(readA.tryLock()).as("a reader that already holds re-enters").isTrue();
        readA.unlock();

        Future<Long> lateReader = workers.submit(() -> {
            readC.lock(60, SECONDS);
            long at = System.nanoTime();
            readC.unlock();
            return at;
        });
        Leaks.awaitWaiters(c, 1);

        long released = System.nanoTime();
        readA.unlock();
        assertThat(writerIn.await(5, SECONDS)).isTrue();
        assertThat(Duration.ofNanos(writerInAt.get() - released).toMillis()).as("ms until the writer had it")
                .isLessThan(WAKE_UP_MS);
        // (the late reader may have marked itself meanwhile, refused by the write hold: the readers' turn is next)
        assertThat(raw.sync().zrange(marks(), 0, -1)).as("the writer's mark goes with the acquisition")
                .noneMatch(mark -> mark.endsWith(":write"));
        Await.during(Duration.ofMillis(300), () -> !lateReader.isDone(), "a reader got in while the writer held");

        long writerReleased = System.nanoTime();
        writerOut.countDown();
        long readerAt = Workers.get(lateReader, TASK_BOUND);
        assertThat(Duration.ofNanos(readerAt - writerReleased).toMillis()).as("ms until the reader had it")
                .isLessThan(WAKE_UP_MS);
        Workers.get(writer, TASK_BOUND);
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void aWriterThatGivesUpLetsTheReadersItHeldBackIn(LockClient a,
                                                      @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient w,
                                                      @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient c) {
        DistributedLock readA = on(a).readLock();
        readA.lock(60, SECONDS);
        DistributedLock write = on(w).writeLock();
        Future<Long> writer = workers.submit(() -> {
            assertThat(write.tryLock(1200, MILLISECONDS)).isFalse();
            return System.nanoTime();
        });
        Await.until(Leaks.SETTLE, () -> raw.exists(marks()), "the waiting writer should leave a mark");
        DistributedLock readC = on(c).readLock();
        Future<Long> reader = workers.submit(() -> {
            readC.lock(60, SECONDS);
            long at = System.nanoTime();
            readC.unlock();
            return at;
        });
        Leaks.awaitWaiters(c, 1);

        long gaveUpAt = Workers.get(writer, TASK_BOUND);
        long readerAt = Workers.get(reader, TASK_BOUND);
        assertThat(Duration.ofNanos(readerAt - gaveUpAt).toMillis()).as("ms from the writer's give-up to the reader")
                .isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(marks())).isFalse();
        readA.unlock();
    }

    @Test
    void aMarkLeftByADeadWriterHoldsReadersBackOnlyUntilItExpires(LockClient a) {
        DistributedLock read = on(a).readLock();
        assertThat(read.isLocked()).as("warm-up: scripts and connections ready before the clock starts").isFalse();
        List<String> time = raw.sync().time();
        long markSet = System.nanoTime();
        long nowMs = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
        raw.sync().zadd(marks(), nowMs + 800, "0a0a0a0a-dead-dead-dead-0a0a0a0a0a0a:1:write");
        raw.sync().pexpire(marks(), 800);

        assertThat(read.tryLock()).isFalse();
        read.lock();
        // measured from when the mark was set (its 800 ms run from there), so a slow first attempt cannot eat into it
        assertThat(Await.millisSince(markSet)).as("ms from the dead writer's mark to the reader getting in")
                .isBetween(700L, 2500L);
        read.unlock();
        assertThat(raw.exists(marks())).isFalse();
    }

    // ------------------------------------------------------------------------------------------ views

    @Test
    void bothSidesReportHoldsLocksAndTtl(LockClient a, LockClient b) {
        long me = tid();
        DistributedReadWriteLock rw = on(a);
        DistributedLock read = rw.readLock();
        DistributedLock write = rw.writeLock();
        DistributedLock readOfB = on(b).readLock();
        assertThat(rw.getName()).isEqualTo(name);
        assertThat(read.getName()).isEqualTo(name);

        assertThat(read.isLocked()).isFalse();
        assertThat(write.isLocked()).isFalse();
        assertThat(read.remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);
        assertThat(write.remainTimeToLive()).isEqualTo(TTL_NOT_LOCKED);

        read.lock(10, SECONDS);
        assertThat(read.isLocked()).isTrue();
        assertThat(readOfB.isLocked()).isTrue();
        assertThat(write.isLocked()).isFalse();
        assertThat(read.remainTimeToLive()).isBetween(9000L, 10_000L);
        assertThat(write.remainTimeToLive()).as("only the read side is held").isEqualTo(TTL_NOT_LOCKED);
        assertThat(read.getHoldCount()).isEqualTo(1);
        assertThat(read.as(LockOwner.of(me)).isHeldByCurrentThread()).isTrue();
        assertThat(readOfB.as(LockOwner.of(me)).isHeldByCurrentThread()).as("same thread id, other client").isFalse();
        assertThat(write.isHeldByCurrentThread()).isFalse();
        assertThat(workers.call(TASK_BOUND, read::isHeldByCurrentThread)).isFalse();
        assertThat(read.leaseValidFor()).isPositive();
        read.unlock();
        assertThat(read.leaseValidFor()).isEqualTo(Duration.ZERO);

        write.lock(10, SECONDS);
        assertThat(write.isLocked()).isTrue();
        assertThat(read.isLocked()).isFalse();
        assertThat(write.remainTimeToLive()).isBetween(9000L, 10_000L);
        assertThat(read.remainTimeToLive()).as("only the write side is held").isEqualTo(TTL_NOT_LOCKED);
        read.lock(20, SECONDS);
        assertThat(read.isLocked()).isTrue();
        assertThat(read.remainTimeToLive()).as("the hash lasts as long as its longest hold").isBetween(19_000L,
                20_000L);
        assertThat(write.remainTimeToLive()).isBetween(19_000L, 20_000L);
        read.unlock();
        assertThat(read.isLocked()).isFalse();
        write.unlock();
        assertThat(raw.exists(name)).isFalse();

        // async, with an owner that hops threads
        long owner = 515_151L;
        assertThat(read.as(LockOwner.of(owner)).lockAsync(LEASE_WATCHDOG, MILLISECONDS)).succeedsWithin(TASK_BOUND);
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "read", reader(a, owner), "1"));
        assertThat(read.isLockedAsync()).succeedsWithin(TASK_BOUND).isEqualTo(true);
        assertThat(write.isLockedAsync()).succeedsWithin(TASK_BOUND).isEqualTo(false);
        assertThat(read.remainTimeToLiveAsync()).succeedsWithin(TASK_BOUND)
                .satisfies(ttl -> assertThat(ttl).isBetween(1L, (long) WATCHDOG_MS));
        assertThat(Workers.failureOf(read.as(LockOwner.of(owner + 1)).unlockAsync(), TASK_BOUND))
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        assertThat(workers.call(TASK_BOUND, () -> read.as(LockOwner.of(owner)).unlockAsync()))
                .succeedsWithin(TASK_BOUND);
        assertThat(raw.exists(name)).isFalse();
        assertThatThrownBy(read::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
    }

    @Test
    void aNameWithItsOwnHashTagKeepsTheTimeoutKeysInItsSlot(LockClient a) {
        name = "it:{rw-tag}:ReadWriteLockIT";
        DistributedReadWriteLock rw = on(a);
        rw.readLock().lock();
        String key = "it:{rw-tag}:ReadWriteLockIT:" + reader(a, tid()) + ":rwlock_timeout:1";
        assertThat(raw.exists(key)).as("timeout key %s; keys: %s", key, raw.keys()).isTrue();
        rw.readLock().unlock();
        assertThat(raw.keys()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------ forceUnlock

    @Test
    void forceUnlockOfTheWriteSideLeavesReadersAloneAndTheReadSideRemovesThemAndWakesTheWriter(
            LockClient a, LockClient b, @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient w,
            LockClient admin) throws Exception {
        long me = tid();
        DistributedLock readA = on(a).readLock();
        DistributedLock readB = on(b).readLock();
        readA.lock(60, SECONDS);
        readB.lock(60, SECONDS);
        DistributedLock write = on(w).writeLock();
        CountDownLatch writerIn = new CountDownLatch(1);
        CountDownLatch writerOut = new CountDownLatch(1);
        AtomicLong writerInAt = new AtomicLong();
        Future<Void> writer = workers.submit(() -> {
            write.lock(60, SECONDS);
            writerInAt.set(System.nanoTime());
            writerIn.countDown();
            assertThat(writerOut.await(20, SECONDS)).isTrue();
            write.unlock();
            return null;
        });
        Leaks.awaitWaiters(w, 1);

        // the write side does not touch a read-held lock
        assertThat(on(admin).writeLock().forceUnlock()).as("write side on a read-held lock").isFalse();
        assertThat(on(admin).writeLock().forceUnlockAsync().get(5, SECONDS)).as("async, the same").isFalse();
        assertThat(readA.getHoldCount()).isEqualTo(1);
        assertThat(readB.getHoldCount()).isEqualTo(1);
        assertThat(raw.hgetall(name)).containsEntry("mode", "read").containsEntry(reader(a, me), "1")
                .containsEntry(reader(b, me), "1");
        assertThat(raw.exists(timeoutKey(name, reader(a, me), 1))).isTrue();
        assertThat(raw.exists(timeoutKey(name, reader(b, me), 1))).isTrue();
        assertThat(writerIn.getCount()).as("the writer still waits").isEqualTo(1);

        // the read side removes every reader and the waiting writer enters at once
        long forced = System.nanoTime();
        assertThat(on(admin).readLock().forceUnlock()).isTrue();
        assertThat(writerIn.await(5, SECONDS)).isTrue();
        assertThat(Duration.ofNanos(writerInAt.get() - forced).toMillis()).isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(timeoutKey(name, reader(a, me), 1))).isFalse();
        assertThat(raw.exists(timeoutKey(name, reader(b, me), 1))).isFalse();
        assertThatThrownBy(readA::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(readB::unlock).isInstanceOf(IllegalMonitorStateException.class);
        writerOut.countDown();
        Workers.get(writer, TASK_BOUND);
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void forceUnlockOfTheReadSideLeavesTheWriterAloneAndTheWriteSideRemovesItAndWakesEveryReader(
            LockClient a, LockClient b, @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient w,
            LockClient admin) throws Exception {
        long me = tid();
        DistributedLock write = on(w).writeLock();
        DistributedLock writersRead = on(w).readLock();
        write.lock(60, SECONDS);
        writersRead.lock(60, SECONDS); // the writer also reads: still a write-held lock

        int readers = 3;
        CountDownLatch readersIn = new CountDownLatch(readers);
        CountDownLatch readersOut = new CountDownLatch(1);
        List<Future<Void>> waitingReaders = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            DistributedLock read = on(i % 2 == 0 ? a : b).readLock();
            waitingReaders.add(workers.submit(() -> {
                read.lock(60, SECONDS);
                readersIn.countDown();
                assertThat(readersOut.await(20, SECONDS)).isTrue();
                read.unlock();
                return null;
            }));
        }
        Await.until(Leaks.SETTLE, () -> Leaks.diagnostics(a).waiters() + Leaks.diagnostics(b).waiters() == readers,
                "readers should wait");

        // the read side does not touch a write-held lock, not even the writer's own read hold
        assertThat(on(admin).readLock().forceUnlock()).as("read side on a write-held lock").isFalse();
        assertThat(write.getHoldCount()).isEqualTo(1);
        assertThat(writersRead.getHoldCount()).isEqualTo(1);
        assertThat(raw.hgetall(name)).containsEntry("mode", "write").containsEntry(writer(w, me), "1")
                .containsEntry(reader(w, me), "1");
        assertThat(raw.exists(timeoutKey(name, reader(w, me), 1))).isTrue();
        assertThat(readersIn.getCount()).as("the readers still wait").isEqualTo(readers);

        // the write side removes the writer (and its read hold); every waiting reader enters at once
        long forced = System.nanoTime();
        assertThat(on(admin).writeLock().forceUnlock()).isTrue();
        assertThat(readersIn.await(5, SECONDS)).as("every reader entered").isTrue();
        assertThat(Await.millisSince(forced)).as("ms until all readers were in").isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(timeoutKey(name, reader(w, me), 1))).isFalse();
        assertThatThrownBy(writersRead::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(write::unlock).isInstanceOf(IllegalMonitorStateException.class);
        readersOut.countDown();
        for (Future<Void> r : waitingReaders) {
            Workers.get(r, TASK_BOUND);
        }
        assertThat(on(admin).readLock().forceUnlock()).as("nothing left to remove").isFalse();
        assertThat(on(admin).writeLock().forceUnlock()).as("nothing left to remove").isFalse();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void forceUnlockOfTheOtherSideKeepsRenewingTheHolds(@ClientSettings(watchdogTimeoutMillis = 600) LockClient c) {
        DistributedLock read = on(c).readLock();
        read.lock(); // watchdog: renewed every 200 ms
        assertThat(on(c).writeLock().forceUnlock()).isFalse();
        // for more than two watchdog timeouts the read hold is still there: its client still renews it
        Await.during(Duration.ofMillis(1500), () -> raw.exists(name), "the read hold is still renewed");
        assertThat(read.getHoldCount()).isEqualTo(1);
        read.unlock();
    }

    // ------------------------------------------------------------------------------------------ watchdog

    @Test
    void readWatchdogRenewsOnlyItsOwnHoldsAndTheHashFollowsTheLongestLiveOne(LockClient a, LockClient dying,
                                                                              LockClient b) {
        long me = tid();
        DistributedLock read = on(a).readLock();
        read.lock();
        read.lock();
        // a reader whose client stops renewing (as if it crashed): its holds must lapse although ours are renewed
        DistributedLock doomed = dying.getReadWriteLock(name).readLock();
        doomed.lock();
        String doomedKey = timeoutKey(name, reader(dying, me), 1);
        dying.close();

        Await.until(Duration.ofMillis(WATCHDOG_MS + 1000), () -> !raw.exists(doomedKey),
                "the dead client's read hold should expire within the watchdog timeout");
        String ours = reader(a, me);
        DistributedLock write = on(b).writeLock();
        Await.during(Duration.ofMillis(2L * WATCHDOG_MS), () -> {
            long hashTtl = raw.pttl(name);
            long ourTtl = Math.max(raw.pttl(timeoutKey(name, ours, 1)), raw.pttl(timeoutKey(name, ours, 2)));
            return hashTtl > 0 && hashTtl <= WATCHDOG_MS && ourTtl > 0 && hashTtl <= ourTtl + 50
                    && !raw.exists(doomedKey) && !write.tryLock();
        }, () -> "our read holds lapsed or the hash outlived them: " + raw.hgetall(name) + " pttl="
                + raw.pttl(name) + " keys=" + raw.keys());
        assertThat(read.getHoldCount()).isEqualTo(2);
        assertThat(Leaks.diagnostics(a).renewedHolds()).isEqualTo(1);

        read.unlock();
        read.unlock();
        assertThat(raw.exists(name)).as("the dead reader's field does not keep the hash").isFalse();
        assertThat(write.tryLock()).isTrue();
        write.unlock();
    }

    // ------------------------------------------------------------------------------------------ load

    @Test
    void readersShareAndWritersExcludeUnderLoad(LockClient a, LockClient b) {
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger maxReaders = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        int threads = 6;
        int iterations = 30;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            LockClient client = i % 2 == 0 ? a : b;
            DistributedReadWriteLock rw = on(client);
            int thread = i;
            results.add(workers.submit(() -> {
                start.await(10, SECONDS);
                for (int n = 0; n < iterations; n++) {
                    if ((n + thread) % 5 == 0) {
                        // write, then downgrade: read while still writing, release the write hold first
                        rw.writeLock().lock();
                        if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                            violations.incrementAndGet();
                        }
                        Thread.sleep(2);
                        rw.readLock().lock();
                        writersInside.decrementAndGet();
                        rw.writeLock().unlock();
                        readSection(readersInside, writersInside, maxReaders, violations);
                        rw.readLock().unlock();
                    } else {
                        DistributedLock read = n % 3 == 0 ? client.getReadWriteLock(name).readLock() : rw.readLock();
                        assertThat(read.tryLock(30, SECONDS)).isTrue();
                        readSection(readersInside, writersInside, maxReaders, violations);
                        read.unlock();
                    }
                }
                return iterations;
            }));
        }
        for (Future<Integer> result : results) {
            assertThat(Workers.get(result, Duration.ofSeconds(45))).isEqualTo(iterations);
        }
        assertThat(violations.get()).as("a writer overlapped with a reader or another writer").isZero();
        assertThat(maxReaders.get()).as("most readers inside at once").isGreaterThanOrEqualTo(2);
        assertThat(raw.exists(name)).isFalse();
    }

    private static void readSection(AtomicInteger readers, AtomicInteger writers, AtomicInteger maxReaders,
                                    AtomicInteger violations) throws InterruptedException {
        maxReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
        if (writers.get() != 0) {
            violations.incrementAndGet();
        }
        Thread.sleep(5);
        readers.decrementAndGet();
    }
}
