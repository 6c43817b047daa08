package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Workers;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replies that never reach the client: the server is frozen (SIGSTOP) while an acquire is on its way, the client's
 * command times out, and Redis runs the command when it is thawed. The hold that attempt took must neither count on
 * top of the owner's next acquisition (whose last unlock would then leave the lock held, unrenewed, for the rest of
 * its lease) nor outlive a wait that gave up.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(watchdogTimeoutMillis = LostReplyIT.WATCHDOG_MS, commandTimeoutMillis = LostReplyIT.COMMAND_MS)
@Timeout(value = 60, unit = SECONDS)
class LostReplyIT {
    static final int WATCHDOG_MS = 3000;
    static final int COMMAND_MS = 250;

    private String name;
    private RawRedis raw;
    private Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:LostReplyIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        raw = RawRedis.connect(server.uri());
        workers = new Workers("lost-reply-worker");
    }

    @AfterEach
    void tearDown() {
        workers.close();
        raw.close();
    }

    /** The owner of the async acquisitions: a fixed id, so that the tests can name its field in the lock hash. */
    private static final LockOwner OWNER = LockOwner.of(7_000_001);

    private String field(LockClient client) {
        return RawRedis.field(client.getId(), OWNER.id());
    }

    /** The owner's hold counts in the lock hash: its field (the writer's has a suffix), without the rw "mode" field. */
    private Map<String, String> holds() {
        Map<String, String> all = new java.util.HashMap<>(raw.hgetall(name));
        all.remove("mode");
        return all;
    }

    private Map<String, String> ownHold(LockKind kind, LockClient client, String count) {
        return Map.of(field(client) + (kind == LockKind.WRITE ? ":write" : ""), count);
    }

    /** Freezes the server for {@code frozenMs} while {@code whileFrozen} sends commands that then time out. */
    private static void frozen(RedisServer server, long frozenMs, Runnable whileFrozen) throws InterruptedException {
        server.pause();
        try {
            whileFrozen.run();
            Thread.sleep(frozenMs); // the commands sent meanwhile time out on the client and wait in the socket
        } finally {
            server.resume();
        }
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void anAcquisitionRetriedAfterLostRepliesCountsOnceAndTheUnlockFreesTheLock(LockKind kind, RedisServer server,
                                                                              LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name).as(OWNER);
        AtomicReference<CompletableFuture<Void>> locking = new AtomicReference<>();
        // lockAsync keeps trying while Redis does not answer: its first attempts time out, and run when thawed
        frozen(server, 3L * COMMAND_MS, () -> locking.set(lock.lockAsync(DistributedLock.LEASE_WATCHDOG,
                MILLISECONDS)));
        locking.get().get(10, SECONDS);
        assertThat(holds()).as("one acquisition, as the client knows").isEqualTo(ownHold(kind, a, "1"));

        lock.lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        assertThat(holds()).as("a re-entry").isEqualTo(ownHold(kind, a, "2"));
        lock.unlockAsync().get(5, SECONDS);
        lock.unlockAsync().get(5, SECONDS);
        assertThat(raw.exists(name)).as("the last unlock frees the lock").isFalse();
        Leaks.assertClientIdle(a);
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aLostReplyUnderALiveHoldIsAdoptedWithoutResettingTheCount(LockKind kind, RedisServer server, LockClient a)
            throws Exception {
        DistributedLock lock = a.getLock(kind, name).as(OWNER);
        lock.lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        lock.lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        AtomicReference<CompletableFuture<Void>> reentry = new AtomicReference<>();
        frozen(server, 3L * COMMAND_MS, () -> reentry.set(lock.lockAsync(DistributedLock.LEASE_WATCHDOG,
                MILLISECONDS)));
        reentry.get().get(10, SECONDS);
        assertThat(holds()).as("two outer acquisitions and this one").isEqualTo(ownHold(kind, a, "3"));
        for (int i = 0; i < 3; i++) {
            lock.unlockAsync().get(5, SECONDS);
            assertThat(raw.exists(name)).as("after unlock %d", i + 1).isEqualTo(i < 2);
        }
        Leaks.assertClientIdle(a);
    }

    /**
     * A wait that gives up while its attempt's reply is missing: the attempt runs later and takes a 60 s hold that
     * nobody knows of. The give-up must drop it, so that the lock is free once Redis answers again, not 60 s later.
     */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    void aWaitThatGivesUpAfterALostReplyLeavesNoHoldBehind(LockKind kind, RedisServer server, LockClient a,
                                                          LockClient b) throws Exception {
        DistributedLock lock = a.getLock(kind, name).as(OWNER);
        AtomicReference<CompletableFuture<Boolean>> trying = new AtomicReference<>();
        frozen(server, 3L * COMMAND_MS, () -> trying.set(lock.tryLockAsync(100, 60_000, MILLISECONDS)));
        // the wait ends 100 ms into a silence shorter than a command timeout: a slow answer, so false (DistributedLock,
        // "a slow answer is a no"); a LockException before issue 43
        assertThat(trying.get().get(10, SECONDS)).as("what the wait answered").isFalse();
        Await.until(Duration.ofSeconds(3), () -> !raw.exists(name),
                () -> "the hold of the lost attempt should be dropped: " + raw.hgetall(name) + ", PTTL "
                        + raw.pttl(name));
        DistributedLock other = b.getLock(kind, name);
        boolean otherGotIt = workers.call(Duration.ofSeconds(5), other::tryLock);
        assertThat(otherGotIt).as("another client gets the lock").isTrue();
        Leaks.assertClientIdle(a);
        Await.until(Duration.ofSeconds(5), () -> !raw.exists(name) || raw.pttl(name) > 0, "a TTL on the key");
    }

    /**
     * A read hold that a lost reply left behind (and whose drop never reached Redis) must not make the same owner's
     * write acquisition fail as a refused upgrade: its client knows of no read hold, so the orphan is dropped.
     */
    @Test
    void anOrphanReadHoldOfTheOwnerDoesNotRefuseItsWriteLock(LockClient a) throws Exception {
        String reader = field(a);
        String timeoutKey = "{" + name + "}:" + reader + ":rwlock_timeout:1";
        raw.sync().hset(name, Map.of("mode", "read", reader, "1"));
        raw.sync().pexpire(name, 60_000);
        raw.sync().psetex(timeoutKey, 60_000, "1");
        DistributedLock write = a.getReadWriteLock(name).writeLock().as(OWNER);

        write.lockAsync(DistributedLock.LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS);
        assertThat(holds()).isEqualTo(Map.of(reader + ":write", "1"));
        assertThat(raw.exists(timeoutKey)).as("the orphan's timeout key").isFalse();
        write.unlockAsync().get(5, SECONDS);
        assertThat(raw.exists(name)).isFalse();
        Leaks.assertClientIdle(a);
    }

    /**
     * A hold taken through the plain lock has no token: the fenced lock's re-entry must issue a fresh one, never hand
     * out the counter's current value (the token of an earlier holder, perhaps paused and still writing).
     */
    @Test
    void aFencedReentryIntoAPlainHoldTakesAFreshToken(LockClient a, LockClient b) throws Exception {
        FencedLock earlier = b.getFencedLock(name);
        long earlierToken = workers.call(Duration.ofSeconds(5), () -> {
            long token = earlier.lockAndGetToken();
            earlier.unlock();
            return token;
        });
        DistributedLock plain = a.getLock(name);
        FencedLock fenced = a.getFencedLock(name);
        plain.lock();
        long token = fenced.lockAndGetToken();
        assertThat(token).as("the re-entry's token").isGreaterThan(earlierToken);
        assertThat(fenced.getToken()).isEqualTo(token);
        assertThat(plain.getHoldCount()).isEqualTo(2);
        long again = fenced.lockAndGetToken();
        assertThat(again).as("a re-entry of a hold that has its token keeps it").isEqualTo(token);
        fenced.unlock();
        fenced.unlock();
        assertThat(plain.getHoldCount()).as("the outer plain acquisition is still held").isEqualTo(1);
        plain.unlock();
        assertThat(raw.exists(name)).isFalse();
    }
}
