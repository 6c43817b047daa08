package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.ReadHoldAndHang;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reader JVM that dies without unlocking (SIGKILL) blocks writers only until its watchdog lease runs out; while it
 * lives, its read watchdog keeps the hold (its timeout key and the hash) for longer than one lease, even beside a
 * reader of another client that renews only its own holds.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = 1500)
@Timeout(value = 90, unit = SECONDS)
class ReadWriteReaderCrashIT {

    private static final long CHILD_WATCHDOG_MS = 2000;

    @Test
    void killedReaderReleasesTheLockWhenItsLeaseRunsOut(RedisServer server, LockClient a, LockClient b)
            throws Exception {
        String name = "it:ReadWriteReaderCrashIT:lock";
        try (RawRedis raw = RawRedis.connect(server.uri());
             ChildJvm child = ChildJvm.start("ReadWriteReaderCrashIT-reader", ReadHoldAndHang.class, server.uri(),
                     name, Long.toString(CHILD_WATCHDOG_MS))) {
            String[] locked = child.awaitLine("LOCKED ", Duration.ofSeconds(60)).split(" ");
            String field = RawRedis.field(locked[1], Long.parseLong(locked[2]));
            String timeoutKey = "{" + name + "}:" + field + ":rwlock_timeout:1";
            assertThat(raw.hgetall(name)).containsEntry("mode", "read").containsEntry(field, "1");
            assertThat(raw.pttl(timeoutKey)).isBetween(1L, CHILD_WATCHDOG_MS);

            // a reader of ours joins for a while: its renewals must not extend the child's hold
            DistributedLock ourRead = a.getReadWriteLock(name).readLock();
            ourRead.lock();
            DistributedLock write = b.getReadWriteLock(name).writeLock();
            // more than one lease: only the child's renewals keep its hold alive
            Await.during(Duration.ofMillis(CHILD_WATCHDOG_MS + 500), () -> {
                if (write.tryLock()) {
                    write.unlock();
                    return false;
                }
                return child.isAlive() && raw.pttl(timeoutKey) > 0 && raw.pttl(name) > 0;
            }, () -> "the living reader lost its hold: " + raw.hgetall(name) + " pttl=" + raw.pttl(name) + "\n"
                    + child.describe());
            ourRead.unlock();
            assertThat(raw.hgetall(name)).as("the child still reads").containsEntry(field, "1");

            long killed = System.nanoTime();
            child.kill();
            assertThat(write.tryLock(10, SECONDS)).as("write lock after the reader died").isTrue();
            long after = Await.millisSince(killed);
            // the remaining lease at the kill is between about two thirds of the watchdog and all of it
            assertThat(after).as("ms from SIGKILL to the write lock").isBetween(300L, CHILD_WATCHDOG_MS + 1000);
            assertThat(raw.hgetall(name)).containsOnlyKeys("mode", RawRedis.field(b.getId(),
                    Thread.currentThread().getId()) + ":write");
            assertThat(raw.exists(timeoutKey)).isFalse();
            write.unlock();
            assertThat(raw.keys()).isEmpty();
            Leaks.assertClientIdle(a);
            Leaks.assertClientIdle(b);
            Leaks.assertNoSubscriptions(raw);
        }
    }
}
