package io.dlock.it;

import io.dlock.DistributedReadWriteLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.LocalQueues;
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

import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A writer's hand-off to waiting owners of its client whose reply is lost (the server is frozen while the script is on
 * its way, the client's command times out, Redis runs it when thawed): the receivers are sent to Redis, whose answer
 * to their own attempts adopts what the hand-off gave them, so every receiver ends up holding exactly once, the
 * releaser believes in no hold, and nothing is left behind.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = WriteHandoffLostReplyIT.WATCHDOG_MS,
        commandTimeoutMillis = WriteHandoffLostReplyIT.COMMAND_MS)
@Timeout(value = 60, unit = SECONDS)
class WriteHandoffLostReplyIT {
    static final int WATCHDOG_MS = 6000;
    static final int COMMAND_MS = 250;
    private static final long WRITER = 7_000_001;
    private static final long READER_1 = 7_000_002;
    private static final long READER_2 = 7_000_003;
    private static final long NEXT_WRITER = 7_000_004;

    private String name;
    private RawRedis raw;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:WriteHandoffLostReplyIT:" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
    }

    @AfterEach
    void tearDown() {
        raw.close();
    }

    /**
     * Runs the hand-off script once with replies: an {@code EVALSHA} whose reply is lost to a server that did not
     * know the script never runs (NOSCRIPT), which is not the case these tests are about.
     */
    private void loadScripts(DistributedReadWriteLock rw, LockClient a) throws Exception {
        rw.as(LockOwner.of(WRITER)).writeLock().lock();
        CompletableFuture<Void> reader = rw.as(LockOwner.of(READER_1)).readLock().lockAsync(LEASE_WATCHDOG,
                MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        rw.as(LockOwner.of(WRITER)).writeLock().unlock();
        reader.get(10, SECONDS);
        rw.as(LockOwner.of(READER_1)).readLock().unlock();
    }

    /** Freezes the server while the writer's unlock is sent; returns the unlock's future. */
    private CompletableFuture<Void> unlockWhileFrozen(RedisServer server, DistributedReadWriteLock rw)
            throws InterruptedException {
        server.pause();
        try {
            CompletableFuture<Void> unlock = rw.as(LockOwner.of(WRITER)).writeLock().unlockAsync();
            Thread.sleep(3L * COMMAND_MS); // the hand-off times out on the client and waits in the socket
            return unlock;
        } finally {
            server.resume();
        }
    }

    @Test
    void readersWhoseHandOffReplyWasLostEachHoldOnceAndTheWriterNone(RedisServer server, LockClient a)
            throws Exception {
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        loadScripts(rw, a);
        rw.as(LockOwner.of(WRITER)).writeLock().lock();
        CompletableFuture<Void> first = rw.as(LockOwner.of(READER_1)).readLock().lockAsync(LEASE_WATCHDOG,
                MILLISECONDS);
        CompletableFuture<Void> second = rw.as(LockOwner.of(READER_2)).readLock().lockAsync(LEASE_WATCHDOG,
                MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 2);

        CompletableFuture<Void> unlock = unlockWhileFrozen(server, rw);
        assertThatThrownBy(() -> unlock.get(5, SECONDS)).hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("unknown");
        first.get(10, SECONDS);
        second.get(10, SECONDS);
        assertThat(raw.hgetall(name)).as("read mode, each reader once, no writer").isEqualTo(Map.of("mode", "read",
                RawRedis.field(a.getId(), READER_1), "1", RawRedis.field(a.getId(), READER_2), "1"));
        assertThat(rw.as(LockOwner.of(WRITER)).writeLock().isHeldByCurrentThread()).isFalse();

        rw.as(LockOwner.of(READER_1)).readLock().unlock();
        rw.as(LockOwner.of(READER_2)).readLock().unlock();
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
        Leaks.assertClientIdle(a);
    }

    @Test
    void aWriterWhoseHandOffReplyWasLostHoldsOnceAndTheReleaserNone(RedisServer server, LockClient a)
            throws Exception {
        DistributedReadWriteLock rw = a.getReadWriteLock(name);
        loadScripts(rw, a);
        // the writer-to-writer script too
        rw.as(LockOwner.of(WRITER)).writeLock().lock();
        CompletableFuture<Void> warm = rw.as(LockOwner.of(NEXT_WRITER)).writeLock().lockAsync(LEASE_WATCHDOG,
                MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        rw.as(LockOwner.of(WRITER)).writeLock().unlock();
        warm.get(10, SECONDS);
        rw.as(LockOwner.of(NEXT_WRITER)).writeLock().unlock();

        rw.as(LockOwner.of(WRITER)).writeLock().lock();
        CompletableFuture<Void> next = rw.as(LockOwner.of(NEXT_WRITER)).writeLock().lockAsync(LEASE_WATCHDOG,
                MILLISECONDS);
        LocalQueues.awaitQueued(a, name, 1);
        CompletableFuture<Void> unlock = unlockWhileFrozen(server, rw);
        assertThatThrownBy(() -> unlock.get(5, SECONDS)).hasCauseInstanceOf(LockException.class);
        next.get(10, SECONDS);
        assertThat(raw.hgetall(name)).isEqualTo(Map.of("mode", "write",
                RawRedis.field(a.getId(), NEXT_WRITER) + ":write", "1"));
        assertThat(raw.exists("dlock_rwlock_writers:{" + name + "}")).as("no waiting mark left").isFalse();

        rw.as(LockOwner.of(NEXT_WRITER)).writeLock().unlock();
        Await.until(Leaks.SETTLE, () -> raw.keys().isEmpty(), () -> "keys left: " + raw.keys());
        Leaks.assertClientIdle(a);
    }
}
