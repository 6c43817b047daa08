package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.Permit;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import io.lettuce.core.ScriptOutputType;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Another client changes the lease of a dlock hold (issue 43, point 5): Redisson's {@code updateLeaseTime} on a
 * leased permit's id (a {@code ZADD} of a new expiry in the permit table), a {@code PEXPIRE} on a lock's key (or on
 * a read hold's timeout key), a {@code forceUnlock}. {@code leaseValidFor()} must not count past what Redis keeps
 * once the client's watchdog has made its next round ({@value #WATCHDOG_MS} ms watchdog: a round every
 * {@value #ROUND_MS} ms), for holds with a fixed lease (whose lease is read back) and watchdog holds (renewed: the
 * lease is set back, or the hold found gone) alike. Before, a fixed-lease hold kept the validity counted at its grant
 * (about 29.7 s of a 30 s lease) while Redis would drop it 2.5 s later.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = ForeignLeaseChangeIT.WATCHDOG_MS)
@Timeout(value = 60, unit = SECONDS)
class ForeignLeaseChangeIT {
    static final long WATCHDOG_MS = 3_000;
    static final long ROUND_MS = WATCHDOG_MS / 3;
    /** The foreign lease: longer than a round, so the round sees it before it ends. */
    static final long FOREIGN_MS = 2_500;
    /** Within one round after the change (plus slack for a loaded machine). */
    static final Duration SEEN_WITHIN = Duration.ofMillis(ROUND_MS + 1_000);
    static final long LONG_LEASE_MS = 30_000;

    private String name;
    private RawRedis raw;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:ForeignLease:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    /** Redisson's updateLeaseTime shortens a dlock permit's lease: a fixed-lease one, and a watchdog one. */
    @ParameterizedTest(name = "watchdog={0}")
    @ValueSource(booleans = {false, true})
    void aPermitsLeaseShortenedByRedissonIsSeenByTheNextRound(boolean watchdog, LockClient a, RedisServer server)
            throws Exception {
        LeasedSemaphore semaphore = a.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        Permit permit = (watchdog ? semaphore.tryAcquire(Duration.ZERO)
                : semaphore.tryAcquire(Duration.ZERO, Duration.ofMillis(LONG_LEASE_MS))).orElseThrow();
        RedissonClient redisson = Redissons.connect(server, WATCHDOG_MS);
        try {
            RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore(name);
            assertThat(theirs.updateLeaseTime(permit.id(), FOREIGN_MS, MILLISECONDS)).isTrue();
            assertSeen(permit::leaseValidFor, () -> permitKeptMs(permit.id()), "permit (watchdog=" + watchdog + ")");
        } finally {
            redisson.shutdown();
            permit.close();
        }
    }

    /** A PEXPIRE by another client shortens a dlock lock hold: a fixed-lease one, and a watchdog one. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(LockKind.class)
    void aLocksLeaseShortenedByAnotherClientIsSeenByTheNextRound(LockKind kind, LockClient a) {
        for (boolean watchdog : new boolean[] {false, true}) {
            long owner = watchdog ? 2 : 1;
            DistributedLock lock = a.getLock(kind, name).as(LockOwner.of(owner));
            lock.lock(watchdog ? DistributedLock.LEASE_WATCHDOG : LONG_LEASE_MS, MILLISECONDS);
            String field = RawRedis.field(a.getId(), owner);
            String key = kind == LockKind.READ ? "{" + name + "}:" + field + ":rwlock_timeout:1" : name;
            assertThat(raw.sync().pexpire(key, FOREIGN_MS)).isTrue();
            assertSeen(lock::leaseValidFor, () -> Math.max(0, LeaseValidForIT.redisKeepsMs(kind, raw, name, field)),
                    kind + " (watchdog=" + watchdog + ")");
            if (lock.leaseValidFor().isZero()) {
                raw.sync().del(name); // lost: nothing of it is left to release
            } else {
                lock.unlock();
            }
        }
    }

    /** Another client's forceUnlock of a fixed-lease hold: seen at the next round, reported lost. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(LockKind.class)
    void aFixedLeaseHoldForceUnlockedByAnotherClientIsReportedLostByTheNextRound(LockKind kind, LockClient a,
                                                                                 LockClient b) {
        List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
        a.addLeaseLostListener(lost::add);
        DistributedLock lock = a.getLock(kind, name).as(LockOwner.of(1));
        lock.lock(LONG_LEASE_MS, MILLISECONDS);
        assertThat(b.getLock(kind, name).forceUnlock()).isTrue();
        Await.until(SEEN_WITHIN, () -> lock.leaseValidFor().isZero() && !lost.isEmpty(),
                () -> kind + ": leaseValidFor " + lock.leaseValidFor() + " after another client's forceUnlock, lost "
                        + lost);
        assertThat(lost).extracting(LeaseLostEvent::reason).containsExactly(LeaseLostEvent.Reason.REMOVED);
    }

    /**
     * Waits (at most one round and some slack) until {@code valid} counts no further than {@code keptMs}, read just
     * after it: what Redis keeps, 0 when it keeps nothing.
     */
    private static void assertSeen(Supplier<Duration> valid, LongSupplier keptMs, String what) {
        long[] last = new long[2];
        Await.until(SEEN_WITHIN, () -> {
            long before = System.nanoTime();
            last[0] = valid.get().toMillis();
            last[1] = keptMs.getAsLong();
            long between = (long) Math.ceil((System.nanoTime() - before) / 1e6);
            return last[0] <= last[1] + between;
        }, () -> what + ": leaseValidFor " + last[0] + " ms while Redis keeps it " + last[1] + " ms");
    }

    /** @return the ms the permit's lease has left by the server's clock, 0 when it is not in the table */
    private long permitKeptMs(String id) {
        Long left = raw.sync().eval("local id = ARGV[1]:gsub('..', function(h)"
                + " return string.char(tonumber(h, 16)) end)"
                + " local score = redis.call('zscore', KEYS[1], id) if not score then return 0 end"
                + " local t = redis.call('time') return math.max(0, math.floor(tonumber(score)"
                + " - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))))",
                ScriptOutputType.INTEGER, new String[] {"{" + name + "}:timeout"}, id);
        return left;
    }
}
