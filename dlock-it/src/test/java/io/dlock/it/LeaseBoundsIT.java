package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.internal.script.LuaScript;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No argument may leave a key without a TTL: extreme leases of every {@link TimeUnit} and {@link Duration} are
 * refused before anything is sent (or accepted and honoured), waits that long mean "no limit", a negative
 * {@link Duration} is refused (never read as the {@code -1} codes), and every acquire script refuses a lease that
 * Redis would not apply before it writes anything. After each step every key of the lock has a TTL.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class LeaseBoundsIT {

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LeaseBoundsIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("lease-bounds-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    /** Every key but the fencing counter (which never expires, by design) has a TTL. */
    private void assertEveryKeyExpires(String when) {
        for (String key : raw.keys()) {
            if (!key.startsWith("redisson_lock_token:")) {
                assertThat(raw.pttl(key)).as("%s: PTTL of %s", when, key).isNotEqualTo(-1L);
            }
        }
    }

    private void assertNothingHeld(String when) {
        assertThat(raw.keys().stream().filter(k -> !k.startsWith("redisson_lock_token:")))
                .as("%s: keys left", when).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void extremeLeasesOfEveryUnitAreRefusedOrHonouredAndNeverLeaveAKeyWithoutTtl(LockKind kind, LockClient a)
            throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        for (TimeUnit unit : TimeUnit.values()) {
            for (long lease : new long[] {Long.MAX_VALUE, Long.MAX_VALUE / 2, Integer.MAX_VALUE, 1}) {
                String what = kind + " lease " + lease + " " + unit;
                long ms = unit.toMillis(lease);
                boolean valid = ms >= 1 && ms <= DistributedLock.MAX_LEASE.toMillis();
                if (!valid) {
                    assertThatThrownBy(() -> lock.lock(lease, unit)).as(what)
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name)
                            .hasMessageContaining("leaseTime");
                    assertThatThrownBy(() -> lock.tryLock(0, lease, unit)).as(what)
                            .isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> lock.as(LockOwner.of(7_000_001L)).lockAsync(lease, unit).get(5, SECONDS))
                            .as(what)
                            .satisfiesAnyOf(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class),
                                    e -> assertThat(e).hasCauseInstanceOf(IllegalArgumentException.class));
                    assertNothingHeld(what);
                    continue;
                }
                lock.lock(lease, unit);
                assertEveryKeyExpires(what);
                if (ms < 2_000) {
                    // too short to re-enter and release reliably: it runs out by itself, leaving nothing
                    Await.until(Duration.ofSeconds(5), () -> raw.keys().stream()
                            .allMatch(k -> k.startsWith("redisson_lock_token:")), what + " should expire");
                    assertThat(lock.leaseValidFor()).as(what).isEqualTo(Duration.ZERO);
                    continue;
                }
                assertThat(raw.pttl(name)).as(what).isBetween(1L, ms);
                assertThat(lock.tryLock(Long.MAX_VALUE, lease, unit)).as(what + ", re-entered").isTrue();
                assertEveryKeyExpires(what + ", re-entered");
                lock.unlock();
                lock.unlock();
                assertNothingHeld(what);
            }
        }
        lock.lock(DistributedLock.MAX_LEASE.toDays(), DAYS);
        assertThat(raw.pttl(name)).isGreaterThan(DistributedLock.MAX_LEASE.toMillis() - 60_000);
        lock.unlock();
        assertThatThrownBy(() -> lock.lock(DistributedLock.MAX_LEASE.toDays() + 1, DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("LEASE_WATCHDOG");
        assertNothingHeld("after all");
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void durationsMustNotBeNegativeAndExtremeOnesAreRefusedOrMeanNoLimit(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        assertThatThrownBy(() -> lock.lock(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.lock(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.lock(Duration.ofNanos(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.lock(null)).isInstanceOf(NullPointerException.class);
        assertNothingHeld("refused durations");

        // a wait longer than any deadline can count means "no limit": it acquires once the holder's lease ends
        DistributedLock holder = kind == LockKind.READ ? a.getReadWriteLock(name).writeLock() : a.getLock(kind, name);
        workers.call(Duration.ofSeconds(5), () -> holder.tryLock(0, 300, MILLISECONDS));
        long start = System.nanoTime();
        assertThat(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofSeconds(10))).isTrue();
        assertThat(Await.millisSince(start)).as("waited for the 300 ms lease, not refused").isBetween(100L, 5_000L);
        assertEveryKeyExpires("after the long wait");
        lock.unlock();
        assertThat(lock.tryLock(Long.MAX_VALUE, DAYS)).isTrue();
        lock.unlock();
        assertNothingHeld("after all");
    }

    /** Each acquire script refuses a lease PEXPIRE would not apply, before it writes anything. */
    @Test
    void everyAcquireScriptRefusesABadLeaseBeforeWriting() {
        String[][] calls = {
                {"lock_acquire", "1", name, "9223372036854775807", "c:1", "0"},
                {"fenced_acquire", "2", name, "redisson_lock_token:{" + name + "}", "-5", "c:1", "0", "0"},
                {"rwlock_write_acquire", "3", name, "{" + name + "}", "dlock_rwlock_writers:{" + name + "}",
                        "0", "c:1:write", "c:1", "1000"},
                {"rwlock_read_acquire", "3", name, "{" + name + "}", "dlock_rwlock_writers:{" + name + "}",
                        "abc", "c:1", "c:1:write"},
                {"fair_acquire", "3", name, "redisson_lock_queue:{" + name + "}", "redisson_lock_timeout:{" + name
                        + "}", "3153600000001", "c:1", "1000", Long.toString(System.currentTimeMillis()), "1",
                        "1000"},
                {"lock_handoff", "1", name, "c:1", "c:2", "0"},
        };
        for (String[] call : calls) {
            String script = script(call[0]);
            int keyCount = Integer.parseInt(call[1]);
            String[] keys = java.util.Arrays.copyOfRange(call, 2, 2 + keyCount);
            String[] args = java.util.Arrays.copyOfRange(call, 2 + keyCount, call.length);
            assertThatThrownBy(() -> raw.sync().eval(script, ScriptOutputType.VALUE, keys, args)).as(call[0])
                    .hasMessageContaining("invalid lease");
            assertThat(raw.keys()).as("%s wrote nothing", call[0]).isEmpty();
        }
    }

    /** The text the client sends: the resource with its fragments included (the resource alone is not runnable). */
    private static String script(String name) {
        return LuaScript.load(name).text();
    }
}
