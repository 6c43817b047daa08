package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call with a wait limit returns within that limit plus one command timeout while Redis does not answer (paused
 * with SIGSTOP), on every lock kind: the acquisition's give-up, sent to the same silent Redis, does not add a second
 * command timeout (a short wait under a long command timeout tells the two apart). What it leaves is cleaned up once
 * Redis answers again, and the owner's next acquisition works. The wait ends 100 ms into a silence, short of a
 * command timeout: Redis is not yet known unavailable, so it answers {@code false}, a slow answer (a
 * {@link io.dlock.LockException} before issue 43; {@code SlowAnswerIT} checks the failure once the silence lasted a
 * command timeout).
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(commandTimeoutMillis = WaitLimitDuringOutageIT.COMMAND_TIMEOUT_MS, watchdogTimeoutMillis = 9_000)
@Timeout(value = 60, unit = SECONDS)
class WaitLimitDuringOutageIT {
    static final long COMMAND_TIMEOUT_MS = 1_500;
    private static final long WAIT_MS = 100;
    /** Scheduling slack on a loaded two-core machine. */
    private static final long SLACK_MS = 700;

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:WaitLimitDuringOutageIT:" + info.getTestMethod().orElseThrow().getName() + ":"
                + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
    }

    private java.util.List<String> leftBehind(RawRedis raw) {
        return raw.sync().keys("*" + name + "*").stream().filter(key -> !key.startsWith("redisson_lock_token")).toList();
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aTimedTryLockReturnsWithinItsWaitPlusOneCommandTimeout(LockKind kind, LockClient a, LockClient b,
                                                                RedisServer server) throws Exception {
        DistributedLock held = b.getLock(kind == LockKind.READ ? LockKind.WRITE : kind, name);
        held.lock(); // busy, so that the waiter is still waiting when Redis stops answering
        DistributedLock lock = a.getLock(kind, name);
        assertThat(lock.tryLock(50, MILLISECONDS)).isFalse(); // warm: scripts loaded, connection up
        server.pause();
        long start = System.nanoTime();
        try {
            assertThat(lock.tryLock(WAIT_MS, MILLISECONDS)).as("a try ending within the first command timeout of a"
                    + " silence").isFalse();
            assertThat(Await.millisSince(start)).as("ms until tryLock(%d ms) returned", WAIT_MS)
                    .isLessThan(WAIT_MS + COMMAND_TIMEOUT_MS + SLACK_MS);
        } finally {
            server.resume();
        }
        held.unlock();
        assertThat(lock.tryLock(5, SECONDS)).as("the owner acquires once Redis answers").isTrue();
        lock.unlock();
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            // everything but the fencing counter, which is kept on purpose (docs/protocol.md §5.1)
            Await.until(Duration.ofSeconds(10), () -> leftBehind(raw).isEmpty(), () -> "left: " + leftBehind(raw));
        }
    }
}
