package io.dlock.it;

import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.CounterWorker;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion across processes: two child JVMs ({@link CounterWorker}) with four threads each increment a
 * counter in Redis non-atomically (GET, then SET n+1) under the lock. Any overlap loses an update, so the total must
 * come out exact; the children also count who is inside with INCR/DECR and fail on a second entrant.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 150, unit = SECONDS)
class MutualExclusionStressIT {

    private static final int PROCESSES = 2;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 100;

    @Test
    void childProcessesNeverOverlap(RedisServer server) {
        String lockName = "it:stress:lock";
        String counter = "it:stress:counter";
        List<ChildJvm> children = new ArrayList<>();
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start("MutualExclusionStressIT-worker-" + i, CounterWorker.class,
                        server.uri(), lockName, counter, Integer.toString(THREADS), Integer.toString(ITERATIONS)));
            }
            // start together, so that they really contend
            Await.until(Duration.ofSeconds(60), () -> {
                for (ChildJvm child : children) {
                    if (!child.isAlive()) {
                        throw new AssertionError("child died early: " + child.describe());
                    }
                }
                String ready = raw.sync().get(counter + ":ready");
                return ready != null && Integer.parseInt(ready) == PROCESSES;
            }, () -> "children not ready: " + describe(children));
            raw.sync().set(counter + ":go", "1");

            for (ChildJvm child : children) {
                int exit = child.awaitExit(Duration.ofSeconds(120));
                assertThat(exit).as("exit code of %s", child.describe()).isZero();
            }
            assertThat(raw.sync().get(counter)).as("counter after %d × %d × %d increments (%s)",
                    PROCESSES, THREADS, ITERATIONS, describe(children))
                    .isEqualTo(Integer.toString(PROCESSES * THREADS * ITERATIONS));
            assertThat(raw.sync().get(counter + ":inside")).as("inside-count").isEqualTo("0");
            assertThat(raw.exists(lockName)).as("lock left behind").isFalse();
            Leaks.assertNoSubscriptions(raw);
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    private static String describe(List<ChildJvm> children) {
        StringBuilder s = new StringBuilder();
        for (ChildJvm child : children) {
            s.append('\n').append(child.describe());
        }
        return s.toString();
    }
}
