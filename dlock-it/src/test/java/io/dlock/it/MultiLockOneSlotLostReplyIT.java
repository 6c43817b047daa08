package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import io.dlock.MultiLock;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
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

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lost-reply rule (docs/protocol.md §1.7) for a multi-lock taken in one script: the server is frozen while the
 * script is on its way, the client's command times out, and Redis runs the script when it is thawed. What it took
 * must count once per member, and a wait that gave up must leave no member held.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = 3000, commandTimeoutMillis = MultiLockOneSlotLostReplyIT.COMMAND_MS)
@Timeout(value = 60, unit = SECONDS)
class MultiLockOneSlotLostReplyIT {
    static final int COMMAND_MS = 250;
    private static final long OWNER = 7_000_002;

    private String a;
    private String b;
    private RawRedis raw;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        String base = "it:MultiLockOneSlotLostReplyIT:" + info.getTestMethod().orElseThrow().getName();
        a = "{" + base + "}:a";
        b = "{" + base + "}:b";
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    private MultiLock multi(LockClient client) {
        return client.getMultiLock(client.getLock(a), client.getLock(b));
    }

    private Map<String, String> hold(LockClient client, String count) {
        return Map.of(RawRedis.field(client.getId(), OWNER), count);
    }

    /** Freezes the server while {@code send} sends a script that then times out; thaws it after 3 timeouts. */
    private static <T> CompletableFuture<T> sentWhileFrozen(RedisServer server,
                                                            java.util.function.Supplier<CompletableFuture<T>> send)
            throws InterruptedException {
        server.pause();
        try {
            CompletableFuture<T> sent = send.get();
            Thread.sleep(3L * COMMAND_MS);
            return sent;
        } finally {
            server.resume();
        }
    }

    @Test
    void anAcquisitionRetriedAfterLostRepliesCountsOncePerMember(RedisServer server, LockClient client)
            throws Exception {
        MultiLock multi = multi(client);
        CompletableFuture<Void> locking = sentWhileFrozen(server,
                () -> multi.as(LockOwner.of(OWNER)).lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS));
        locking.get(10, SECONDS);
        assertThat(raw.hgetall(a)).as("one acquisition, as the client knows").isEqualTo(hold(client, "1"));
        assertThat(raw.hgetall(b)).isEqualTo(hold(client, "1"));

        multi.as(LockOwner.of(OWNER)).lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        assertThat(raw.hgetall(a)).as("a re-entry").isEqualTo(hold(client, "2"));
        assertThat(raw.hgetall(b)).isEqualTo(hold(client, "2"));
        multi.as(LockOwner.of(OWNER)).unlockAsync().get(5, SECONDS);
        multi.as(LockOwner.of(OWNER)).unlockAsync().get(5, SECONDS);
        assertThat(raw.exists(a) || raw.exists(b)).as("the last unlock frees every member").isFalse();
        Leaks.assertClientIdle(client);
    }

    @Test
    void aWaitThatGivesUpAfterALostReplyLeavesNoMemberBehind(RedisServer server, LockClient client,
                                                             LockClient other) throws Exception {
        CompletableFuture<Boolean> trying = sentWhileFrozen(server,
                () -> multi(client).as(LockOwner.of(OWNER)).tryLockAsync(100, 60_000, MILLISECONDS));
        // the wait ends 100 ms into a silence shorter than a command timeout: a slow answer, so false (DistributedLock,
        // "a slow answer is a no"); a LockException before issue 43
        assertThat(trying.get(10, SECONDS)).as("what the wait answered").isFalse();
        Await.until(Duration.ofSeconds(3), () -> !raw.exists(a) && !raw.exists(b),
                () -> "the lost attempt's holds should be dropped: " + raw.hgetall(a) + " " + raw.hgetall(b));
        assertThat(multi(other).tryLockAsync().get(5, SECONDS)).as("another client gets both").isTrue();
        Leaks.assertClientIdle(client);
    }
}
