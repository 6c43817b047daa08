package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.HoldAndHang;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder that dies without unlocking (SIGKILL) blocks others only until its watchdog lease runs out; while it lives,
 * its watchdog keeps the lock for longer than one lease.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class HolderCrashIT {

    private static final long CHILD_WATCHDOG_MS = 2000;

    @Test
    void killedHolderReleasesTheLockWhenItsLeaseRunsOut(RedisServer server, LockClient a) throws Exception {
        String name = "it:HolderCrashIT:lock";
        try (RawRedis raw = RawRedis.connect(server.uri());
             ChildJvm child = ChildJvm.start("HolderCrashIT-holder", HoldAndHang.class, server.uri(), name,
                     Long.toString(CHILD_WATCHDOG_MS))) {
            String[] locked = child.awaitLine("LOCKED ", Duration.ofSeconds(60)).split(" ");
            String field = RawRedis.field(locked[1], Long.parseLong(locked[2]));
            assertThat(raw.hgetall(name)).containsEntry(field, "1");
            assertThat(raw.pttl(name)).isBetween(1L, CHILD_WATCHDOG_MS);

            DistributedLock lock = a.getLock(name);
            // more than one lease: only the child's renewals can keep it out of our hands
            Await.during(Duration.ofMillis(CHILD_WATCHDOG_MS + 500), () -> {
                if (lock.tryLock()) {
                    lock.unlock();
                    return false;
                }
                return child.isAlive() && raw.sync().hexists(name, field);
            }, () -> "the living holder lost its lock: " + raw.hgetall(name) + " pttl=" + raw.pttl(name) + "\n"
                    + child.describe());

            long killed = System.nanoTime();
            child.kill();
            assertThat(lock.tryLock(10, SECONDS)).as("lock after the holder died").isTrue();
            long after = Await.millisSince(killed);
            // the remaining lease at the kill is between about two thirds of the watchdog and all of it
            assertThat(after).as("ms from SIGKILL to our acquisition").isBetween(500L, CHILD_WATCHDOG_MS + 1000);
            assertThat(raw.hgetall(name)).containsOnlyKeys(RawRedis.field(a.getId(), Thread.currentThread().getId()));
            lock.unlock();
            assertThat(raw.exists(name)).isFalse();
            Leaks.assertClientIdle(a);
            Leaks.assertNoSubscriptions(raw);
        }
    }
}
