package io.dlock.it;

import io.dlock.it.support.ChildJvm;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.PermitWorker;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Permits across processes: three child JVMs ({@link PermitWorker}) with four threads each take the permits of one
 * semaphore of three permits; never more than three inside (counted in Redis), every permit back at the end.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 180, unit = SECONDS)
class SemaphoreProcessesIT {

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    private static final int ITERATIONS = 40;
    private static final int PERMITS = 3;

    @ParameterizedTest
    @ValueSource(strings = {"plain", "leased"})
    void childProcessesNeverTakeMoreThanThePermits(String kind, RedisServer server) {
        String name = "it:SemaphoreProcessesIT:" + kind;
        String counter = name + ":counter";
        List<ChildJvm> children = new ArrayList<>();
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            raw.sync().set(name, Integer.toString(PERMITS));
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start("SemaphoreProcessesIT-" + kind + "-" + i, PermitWorker.class,
                        server.uri(), name, counter, Integer.toString(THREADS), Integer.toString(ITERATIONS),
                        Integer.toString(PERMITS), kind));
            }
            Await.until(Duration.ofSeconds(60), () -> {
                for (ChildJvm child : children) {
                    if (!child.isAlive()) {
                        throw new AssertionError("child died early: " + child.describe());
                    }
                }
                String ready = raw.sync().get(counter + ":ready");
                return ready != null && Integer.parseInt(ready) == PROCESSES;
            }, "children ready");
            raw.sync().set(counter + ":go", "1");
            for (ChildJvm child : children) {
                assertThat(child.awaitExit(Duration.ofSeconds(150))).as("exit code of %s", child.describe())
                        .isZero();
            }
            assertThat(Integer.parseInt(raw.sync().get(counter + ":max"))).as("most inside at once")
                    .isBetween(2, PERMITS);
            assertThat(raw.sync().get(counter + ":inside")).isEqualTo("0");
            assertThat(raw.sync().get(name)).as("every permit back").isEqualTo(Integer.toString(PERMITS));
            assertThat(raw.exists("{" + name + "}:timeout")).as("no permit left in the table").isFalse();
            Leaks.assertNoSubscriptions(raw);
        } finally {
            children.forEach(ChildJvm::close);
        }
    }
}
