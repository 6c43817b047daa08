package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.HeldLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.LockOwner;
import io.dlock.LockKind;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link DistributedLock#extendLease} on every lock kind: it sets what Redis keeps of the owner's hold (longer or
 * shorter), {@code leaseValidFor()} follows without ever running past it, a watchdog hold becomes a fixed-lease one,
 * and it fails, naming the lock, for an owner that holds nothing, after the lease ran out, and after the hold was
 * removed (by this client, or behind its back), never bringing a hold back.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LeaseExtensionIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class LeaseExtensionIT {
    static final int WATCHDOG_MS = 1500;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LeaseExtensionIT:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("extension-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    private static long margin(long leaseMs) {
        return leaseMs / 100 + 2;
    }

    /** How long Redis keeps {@code owner}'s hold (ms): the hash's PTTL, or its longest read hold's. */
    private long keepsMs(LockKind kind, LockClient client, long owner) {
        return LeaseValidForIT.redisKeepsMs(kind, raw, name, RawRedis.field(client.getId(), owner));
    }

    /** leaseValidFor() first, then what Redis keeps: the local view must not be the later one. */
    private long assertValidNotBeyondRedis(LockKind kind, DistributedLock lock, LockClient client, long owner) {
        long before = System.nanoTime();
        long valid = lock.leaseValidFor().toMillis();
        long keeps = keepsMs(kind, client, owner);
        long between = (long) Math.ceil((System.nanoTime() - before) / 1e6);
        assertThat(valid).as("%s: leaseValidFor vs what Redis keeps (%d ms)", kind, keeps)
                .isLessThanOrEqualTo(keeps + between);
        return valid;
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void extendsAndShortensWhatRedisKeeps(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        long me = Thread.currentThread().getId();
        lock.lock(2, SECONDS);

        lock.extendLease(Duration.ofSeconds(20));
        assertThat(keepsMs(kind, a, me)).isBetween(19_000L, 20_000L);
        assertThat(raw.pttl(name)).as("the lock's TTL").isBetween(19_000L, 20_000L);
        long valid = assertValidNotBeyondRedis(kind, lock, a, me);
        assertThat(valid).isBetween(20_000 - margin(20_000) - 1_000, 20_000 - margin(20_000));

        lock.extendLease(Duration.ofMillis(800));
        assertThat(keepsMs(kind, a, me)).isBetween(1L, 800L);
        assertThat(assertValidNotBeyondRedis(kind, lock, a, me)).isLessThanOrEqualTo(800 - margin(800));
        Await.until(WAIT, () -> !raw.exists(name), "the shortened lease runs out in Redis");
        assertThat(lock.leaseValidFor()).isZero();
    }

    /**
     * Extended to less than the watchdog timeout (which the watchdog, renewing every 500 ms, would restore), the hold
     * only runs down and ends: the watchdog no longer renews it, and the owner is told when it ran out.
     */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aWatchdogHoldBecomesAFixedLeaseHold(LockKind kind, LockClient a) throws InterruptedException {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        assertThat(a.heldLocks()).singleElement().extracting(HeldLock::renewedByWatchdog).isEqualTo(true);
        lock.extendLease(Duration.ofMillis(WATCHDOG_MS * 2 / 3));
        assertThat(a.heldLocks()).singleElement().extracting(HeldLock::renewedByWatchdog).isEqualTo(false);
        long me = Thread.currentThread().getId();
        long previous = Long.MAX_VALUE;
        long deadline = System.nanoTime() + SECONDS.toNanos(5);
        for (long keeps = keepsMs(kind, a, me); keeps >= 0; keeps = keepsMs(kind, a, me)) {
            assertThat(keeps).as("what Redis keeps only runs down").isLessThanOrEqualTo(previous);
            assertThat(System.nanoTime() - deadline).as("the extended lease runs out in Redis").isNegative();
            previous = keeps;
            Thread.sleep(20);
        }
        Await.until(WAIT, () -> !raw.exists(name), "the lock ends with the hold");
        Await.until(WAIT, () -> !lost.isEmpty(), "the owner is told");
        assertThat(lost).singleElement().extracting(LeaseLostEvent::reason).isEqualTo(LeaseLostEvent.Reason.EXPIRED);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = "READ", mode = EnumSource.Mode.EXCLUDE)
    void aPartialUnlockKeepsTheExtendedLease(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        lock.lock(1, SECONDS);
        lock.extendLease(Duration.ofSeconds(10));
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(raw.pttl(name)).as("the outer acquisition counts as taken with the new lease")
                .isBetween(9_000L, 10_000L);
        assertValidNotBeyondRedis(kind, lock, a, Thread.currentThread().getId());
        lock.unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void failsForAnOwnerThatHoldsNothing(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        assertThatThrownBy(() -> lock.extendLease(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'" + name + "'")
                .hasMessageContaining("cannot be extended");

        lock.lock(5, SECONDS);
        LockOwner other = a.newOwner();
        assertThatThrownBy(() -> lock.as(other).extendLease(Duration.ofSeconds(30)))
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'" + name + "'")
                .hasMessageContaining(RawRedis.field(a.getId(), other.id()));
        Throwable fromAnotherThread = Workers.failureOf(workers.submit(
                () -> lock.extendLeaseAsync(Duration.ofSeconds(30)).join()), WAIT);
        assertThat(fromAnotherThread).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'" + name + "'");
        assertThat(raw.pttl(name)).as("nothing was extended").isBetween(1L, 5_000L);
        lock.unlock();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void failsOnceTheLeaseRanOutWithoutBringingTheHoldBack(LockKind kind, LockClient a, LockClient b)
            throws InterruptedException {
        DistributedLock lock = a.getLock(kind, name);
        assertThat(lock.tryLock(0, 300, MILLISECONDS)).isTrue();
        Await.until(WAIT, () -> !raw.exists(name), "the lease runs out");
        assertThatThrownBy(() -> lock.extendLease(Duration.ofSeconds(30)))
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'" + name + "'")
                .hasMessageContaining("lease ran out");
        assertThat(raw.exists(name)).isFalse();
        assertThat(b.getLock(kind, name).tryLock()).as("free for others").isTrue();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void failsAfterAForceUnlockNamingTheLock(LockKind kind, LockClient a, LockClient b) throws Exception {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(30, SECONDS); // a fixed lease: no renewal can find the hold gone before the extension does
        assertThat(b.getLock(kind, name).forceUnlock()).isTrue();

        assertThatThrownBy(() -> lock.extendLease(Duration.ofSeconds(30))).isInstanceOf(LockLostException.class)
                .hasMessageContaining("'" + name + "'").hasMessageContaining("gone from Redis")
                .satisfies(e -> assertThat(((LockLostException) e).lockName()).isEqualTo(name));
        assertThat(raw.exists(name)).as("not brought back").isFalse();
        assertThat(lock.leaseValidFor()).isZero();
        Await.until(WAIT, () -> !lost.isEmpty(), "the listeners are told");
        assertThat(lost).singleElement().satisfies(event -> {
            assertThat(event.lockName()).isEqualTo(name);
            assertThat(event.reason()).isEqualTo(LeaseLostEvent.Reason.REMOVED);
        });

        // removed by this client's own forceUnlock: the client knows, nothing is sent
        lock.lock();
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(lock.extendLeaseAsync(Duration.ofSeconds(30))).failsWithin(WAIT).withThrowableThat()
                .havingRootCause().isInstanceOf(IllegalMonitorStateException.class)
                .withMessageContaining("'" + name + "'");
    }

    @Test
    void aReadExtensionKeepsTheLockAsLongAsItsLongestReader(LockClient a) {
        DistributedLock read = a.getReadWriteLock(name).readLock();
        LockOwner first = a.newOwner();
        LockOwner second = a.newOwner();
        read.as(first).lock(2, SECONDS);
        read.as(second).lock(5, SECONDS);
        read.as(first).extendLease(Duration.ofSeconds(20));
        assertThat(raw.pttl(name)).isBetween(19_000L, 20_000L);
        read.as(first).extendLease(Duration.ofMillis(500));
        assertThat(raw.pttl(name)).as("back to the other reader's hold").isBetween(4_000L, 5_000L);
        assertThat(keepsMs(LockKind.READ, a, second.id())).isBetween(4_000L, 5_000L);
        read.as(second).extendLease(Duration.ofMillis(700));
        assertThat(raw.pttl(name)).as("the hash lives exactly as long as its longest read hold").isBetween(1L, 700L);
        Await.until(WAIT, () -> !raw.exists(name), "both reads run out, and the hash with them");
    }

    @Test
    void aWriteExtensionNeverShortensTheWritersOwnReadHolds(LockClient a) {
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        rw.writeLock().lock(2, SECONDS);
        rw.readLock().lock(10, SECONDS);
        rw.writeLock().extendLease(Duration.ofMillis(500));
        assertThat(raw.pttl(name)).as("the writer's read hold lasts longer").isBetween(9_000L, 10_000L);
        assertThat(rw.writeLock().leaseValidFor()).isLessThanOrEqualTo(Duration.ofMillis(500));
        rw.writeLock().extendLease(Duration.ofSeconds(30));
        assertThat(raw.pttl(name)).isBetween(29_000L, 30_000L);
        rw.writeLock().unlock();
        rw.readLock().unlock();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void aHoldGoneBehindTheClientsBackIsReportedLost(LockClient a) {
        DistributedLock lock = a.getLock(name);
        LockOwner owner = a.newOwner();
        lock.as(owner).lock(30, SECONDS);
        raw.sync().del(name);
        Throwable failure = Workers.failureOf(lock.as(owner).extendLeaseAsync(Duration.ofSeconds(30)), WAIT);
        assertThat(failure).isInstanceOf(LockLostException.class).hasMessageContaining("'" + name + "'")
                .hasMessageContaining(RawRedis.field(a.getId(), owner.id()));
        assertThat(lock.as(owner).leaseValidFor()).isZero();
        assertThat(raw.exists(name)).isFalse();
        assertThatThrownBy(() -> lock.as(owner).unlock()).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void argumentsAreCheckedBeforeAnythingIsSent(LockClient a) {
        DistributedLock lock = a.getLock(name);
        lock.lock(5, SECONDS);
        assertThatThrownBy(() -> lock.extendLease(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lease");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999),
                DistributedLock.MAX_LEASE.plusMillis(1))) {
            assertThatThrownBy(() -> lock.extendLease(bad)).as("%s", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + name + "'").hasMessageContaining("lease");
            assertThatThrownBy(() -> lock.extendLeaseAsync(bad)).as("async: thrown at once")
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(raw.pttl(name)).isBetween(1L, 5_000L);
        lock.extendLease(DistributedLock.MAX_LEASE);
        assertThat(raw.pttl(name)).isCloseTo(DistributedLock.MAX_LEASE.toMillis(), within(1_000L));
        lock.unlock();
    }
}
