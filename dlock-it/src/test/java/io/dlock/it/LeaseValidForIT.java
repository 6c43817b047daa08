package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.LockOwner;
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

/**
 * {@link DistributedLock#leaseValidFor()} for every lock kind: positive while held, within the lease minus the margin
 * (1% of the lease + 2 ms), never later than Redis keeps the hold (checked against the PTTL right after), also after
 * re-entries and partial releases with different leases, {@code ZERO} for a thread that holds nothing, after the
 * release, once the lease ran out, and while Redis does not answer (counted locally, no round trip).
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LeaseValidForIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class LeaseValidForIT {
    static final int WATCHDOG_MS = 1500;

    /**
     * How long Redis keeps the hold of {@code field}, in ms: the hash's PTTL, or for a read hold the longest PTTL of
     * the owner's own timeout keys (stricter than the hash, which other readers may keep alive).
     */
    static long redisKeepsMs(LockKind kind, RawRedis raw, String name, String field) {
        if (kind != LockKind.READ) {
            return raw.pttl(name);
        }
        String count = raw.sync().hget(name, field);
        long longest = -2;
        for (int n = 1; count != null && n <= Integer.parseInt(count); n++) {
            longest = Math.max(longest, raw.pttl("{" + name + "}:" + field + ":rwlock_timeout:" + n));
        }
        return longest;
    }

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LeaseValidForIT:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("lease-valid-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    private static long margin(long leaseMs) {
        return leaseMs / 100 + 2;
    }

    /**
     * leaseValidFor() read first, then how long Redis keeps the hold: the local view may not be the later one. The
     * time between the two reads (a descheduled test thread) is allowed for, and nothing else: what Redis keeps was
     * measured that much later than the validity.
     */
    private long assertNotBeyondRedis(LockKind kind, DistributedLock lock, LockClient client) {
        long before = System.nanoTime();
        long valid = lock.leaseValidFor().toMillis();
        long keeps = redisKeepsMs(kind, raw, name, RawRedis.field(client.getId(), Thread.currentThread().getId()));
        long between = (long) Math.ceil((System.nanoTime() - before) / 1e6);
        assertThat(valid).as("%s: leaseValidFor (ms) vs what Redis keeps (%d ms) read up to %d ms later", kind, keeps,
                between).isLessThanOrEqualTo(keeps + between);
        return valid;
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void fixedLeaseMinusTheMargin(LockKind kind, LockClient a) throws InterruptedException {
        DistributedLock lock = a.getLock(kind, name);
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);

        lock.lock(10, SECONDS);
        long valid = assertNotBeyondRedis(kind, lock, a);
        assertThat(valid).isBetween(10_000 - margin(10_000) - 500, 10_000 - margin(10_000));
        assertThat(workers.call(Duration.ofSeconds(10), lock::leaseValidFor)).as("another thread")
                .isEqualTo(Duration.ZERO);
        lock.unlock();
        assertThat(lock.leaseValidFor()).as("after unlock").isEqualTo(Duration.ZERO);

        assertThat(lock.tryLock(0, 700, MILLISECONDS)).isTrue();
        assertNotBeyondRedis(kind, lock, a);
        Await.until(Duration.ofSeconds(3), () -> lock.leaseValidFor().isZero(), "a 700 ms lease runs out");
        Await.until(Duration.ofSeconds(3), () -> !raw.exists(name), "the key expires");
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void watchdogHoldStaysValidAcrossRenewals(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        Await.during(Duration.ofMillis(2L * WATCHDOG_MS), () -> {
            long valid = assertNotBeyondRedis(kind, lock, a);
            return valid > 0 && valid <= WATCHDOG_MS - margin(WATCHDOG_MS);
        }, () -> kind + ": watchdog hold not valid: " + lock.leaseValidFor());
        lock.unlock();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    /** A re-entry with a longer lease, released again: Redis goes back to the outer (shorter) lease, and so must we. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void partialReleaseOfALongerReentryGoesBackToTheOuterLease(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(2, SECONDS);
        lock.lock(60, SECONDS);
        assertThat(assertNotBeyondRedis(kind, lock, a)).isGreaterThan(50_000L);
        lock.unlock();
        long valid = assertNotBeyondRedis(kind, lock, a);
        assertThat(valid).as("%s after the partial release", kind).isBetween(1L, 2_000L);
        Await.until(Duration.ofSeconds(5), () -> lock.leaseValidFor().isZero(),
                "the outer 2 s lease runs out locally");
        Await.until(Duration.ofSeconds(5), () -> redisKeepsMs(kind, raw, name,
                RawRedis.field(a.getId(), Thread.currentThread().getId())) < 0, "and in Redis");
    }

    /**
     * A watchdog hold re-entered with a longer fixed lease: renewal must not cut Redis's TTL back to the watchdog
     * timeout while the owner's view stays at the long lease (else, cut off from Redis, the owner would believe in its
     * hold for an hour while another client takes the lock after 30 s). Several renewal rounds later, Redis still
     * keeps the hour and {@code leaseValidFor()} is never later than that; the partial release then goes back to the
     * watchdog lease, which is renewed as before.
     */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void renewalNeverShortensALongerReentry(LockKind kind, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        String field = RawRedis.field(a.getId(), Thread.currentThread().getId());
        lock.lock();
        lock.lock(1, java.util.concurrent.TimeUnit.HOURS);
        // three renewal rounds (every WATCHDOG_MS / 3)
        Await.during(Duration.ofMillis(WATCHDOG_MS + 200), () -> {
            long valid = assertNotBeyondRedis(kind, lock, a);
            return valid > 3_500_000L && redisKeepsMs(kind, raw, name, field) > 3_500_000L;
        }, () -> kind + ": Redis keeps " + redisKeepsMs(kind, raw, name, field) + " ms, leaseValidFor "
                + lock.leaseValidFor());
        lock.unlock();
        assertThat(lock.leaseValidFor().toMillis()).as("%s: back to the watchdog lease", kind)
                .isBetween(1L, (long) WATCHDOG_MS);
        assertThat(redisKeepsMs(kind, raw, name, field)).as("%s: Redis keeps", kind).isPositive();
        lock.unlock();
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    /** Another thread (a watchdog of the caller's own, say) reads an owner's validity by its owner id. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void anyThreadReadsAnOwnersValidityByItsOwnerId(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        long owner = 7_000_001L;
        assertThat(lock.as(LockOwner.of(owner)).leaseValidFor()).isEqualTo(Duration.ZERO);
        lock.as(LockOwner.of(owner)).lockAsync(10, SECONDS).get(5, SECONDS);
        long valid = workers.call(Duration.ofSeconds(5), () -> lock.as(LockOwner.of(owner)).leaseValidFor()).toMillis();
        assertThat(valid).isBetween(10_000 - margin(10_000) - 500, 10_000 - margin(10_000));
        assertThat(lock.leaseValidFor()).as("the test thread holds nothing").isEqualTo(Duration.ZERO);
        lock.as(LockOwner.of(owner)).unlockAsync().get(5, SECONDS);
        assertThat(lock.as(LockOwner.of(owner)).leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    /** Read and write holds of one owner are separate records (field {@code id:tid} and {@code id:tid:write}). */
    @Test
    void readAndWriteHoldsOfOneOwnerAreTrackedApart(LockClient a) {
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        rw.writeLock().lock(10, SECONDS);
        rw.readLock().lock(2, SECONDS);
        assertThat(rw.writeLock().leaseValidFor().toMillis()).isBetween(9_000L, 10_000L);
        assertThat(assertNotBeyondRedis(LockKind.READ, rw.readLock(), a)).isBetween(1L, 2_000L);

        rw.writeLock().unlock(); // downgrade: the read hold stays, the hash now lives as long as it
        assertThat(rw.writeLock().leaseValidFor()).isEqualTo(Duration.ZERO);
        assertThat(assertNotBeyondRedis(LockKind.READ, rw.readLock(), a)).isBetween(1L, 2_000L);
        assertThat(rw.readLock().leaseValidFor().toMillis()).isLessThanOrEqualTo(raw.pttl(name));
        rw.readLock().unlock();
        assertThat(rw.readLock().leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    /** No round trip: while Redis is frozen the validity still runs down, and reaches zero when the lease would end. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    @ClientSettings(watchdogTimeoutMillis = WATCHDOG_MS, commandTimeoutMillis = 450)
    void runsOutWhileRedisDoesNotAnswer(LockKind kind, RedisServer server, LockClient a) {
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        long paused = System.nanoTime();
        server.pause();
        try {
            long t = System.nanoTime();
            Duration valid = lock.leaseValidFor();
            assertThat(Await.millisSince(t)).as("leaseValidFor() needs no round trip").isLessThan(100L);
            assertThat(valid).isPositive();
            Await.until(Duration.ofMillis(WATCHDOG_MS + 1000), () -> lock.leaseValidFor().isZero(),
                    "validity must run out while Redis does not answer");
            // the last renewal was at most a third of the watchdog timeout before the pause
            assertThat(Await.millisSince(paused)).isGreaterThanOrEqualTo(WATCHDOG_MS * 2L / 3 - 100);
        } finally {
            server.resume();
        }
        Await.until(Duration.ofSeconds(10), () -> {
            try {
                lock.unlock();
                return true;
            } catch (IllegalMonitorStateException expected) {
                return true;
            } catch (LockException notYet) {
                return false;
            }
        }, "unlock settles once Redis answers again");
        assertThat(lock.leaseValidFor()).isEqualTo(Duration.ZERO);
    }

    /**
     * An outer fixed lease with an inner watchdog re-entry: after the inner unlock Redis keeps the hold for the outer
     * lease again, and so does leaseValidFor() (within the margin), with no loss reported while Redis keeps it.
     * (The read side keeps one TTL per acquisition: its outer hold never shortened, see the test above.)
     */
    @ParameterizedTest
    @EnumSource(value = LockKind.class, names = {"PLAIN", "FAIR", "WRITE", "FENCED"})
    void anOuterFixedLeaseCountsAgainAfterAnInnerWatchdogReentryIsReleased(LockKind kind, LockClient a)
            throws InterruptedException {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(kind, name);
        lock.lock(20, SECONDS);
        lock.lock();
        Thread.sleep(2 * WATCHDOG_MS); // the inner watchdog acquisition is renewed meanwhile
        lock.unlock();

        long before = System.nanoTime();
        long valid = lock.leaseValidFor().toMillis();
        long keeps = raw.pttl(name);
        long between = (long) Math.ceil((System.nanoTime() - before) / 1e6);
        assertThat(keeps).as("Redis keeps the outer lease again").isGreaterThan(18_000L);
        assertThat(valid).as("leaseValidFor, not later than Redis (%d ms)", keeps)
                .isLessThanOrEqualTo(keeps + between)
                .isGreaterThan(keeps - 20_000 / 100 - 2 - 1_000);
        Thread.sleep(2 * WATCHDOG_MS);
        assertThat(lost).as("no loss while Redis keeps the hold").isEmpty();
        assertThat(lock.leaseValidFor().toMillis()).isGreaterThan(15_000L);
        lock.unlock();
        assertThat(raw.exists(name)).isFalse();
    }
}
