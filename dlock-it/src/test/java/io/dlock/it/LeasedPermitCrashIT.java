package io.dlock.it;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.LeasedPermitHolder;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.SemaphoreProbe;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.Optional;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A leased-permit holder that dies without releasing (SIGKILL) keeps others out only until its watchdog lease runs
 * out; while it lives, its watchdog keeps the permit for longer than one lease. (A Redisson permit taken without a
 * lease would be lost for ever.)
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class LeasedPermitCrashIT {

    private static final long CHILD_WATCHDOG_MS = 2000;

    @Test
    void aKilledHoldersPermitComesBackWithinItsLease(RedisServer server, LockClient client) throws Exception {
        String name = "it:LeasedPermitCrashIT:sem";
        LeasedSemaphore semaphore = client.getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        try (RawRedis raw = RawRedis.connect(server.uri());
             ChildJvm child = ChildJvm.start("LeasedPermitCrashIT-holder", LeasedPermitHolder.class, server.uri(),
                     name, Long.toString(CHILD_WATCHDOG_MS))) {
            String id = child.awaitLine("PERMIT ", Duration.ofSeconds(60)).split(" ")[1];
            assertThat(id).matches("[0-9a-f]{32}");

            // more than one lease: only the child's renewals can keep the permit from us
            Await.during(Duration.ofMillis(CHILD_WATCHDOG_MS + 700), () -> {
                Optional<Permit> stolen = semaphore.tryAcquire();
                stolen.ifPresent(Permit::close);
                return stolen.isEmpty() && child.isAlive();
            }, () -> "the living holder lost its permit: available=" + semaphore.availablePermits()
                    + "\n" + child.describe());

            long killed = System.nanoTime();
            child.kill();
            Optional<Permit> permit = semaphore.tryAcquire(Duration.ofSeconds(10), null);
            long after = Await.millisSince(killed);
            assertThat(permit).as("permit after the holder died").isPresent();
            // the remaining lease at the kill is between about two thirds of the watchdog and all of it
            assertThat(after).as("ms from SIGKILL to our permit").isBetween(300L, CHILD_WATCHDOG_MS + 1200);
            assertThat(semaphore.acquiredPermits()).as("the dead holder's permit was reclaimed").isEqualTo(1);
            assertThat(permit.get().release()).isTrue();
            assertThat(semaphore.availablePermits()).isEqualTo(1);
            assertThat(raw.exists("{" + name + "}:timeout")).isFalse();
            SemaphoreProbe.assertIdle(client);
        }
    }
}
