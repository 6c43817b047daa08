package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import io.dlock.it.support.Leaks;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static io.dlock.DistributedLock.LEASE_WATCHDOG;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The async twins added so that every blocking method has one (the rule: {@code AsyncTwinTest} in dlock-core): the
 * hold queries, the {@code tryLock}/{@code lock} overloads with a wait only or with {@link Duration}s, the fenced
 * lock's token methods and {@link LockClient#inspectAsync}. Each answers as its blocking form does.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 30, unit = SECONDS)
class AsyncTwinsIT {

    /** An async owner id far from any thread id of the test JVM. */
    private static final long OTHER_OWNER = 5_000_001L;

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:AsyncTwinsIT:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
    }

    @ParameterizedTest
    @EnumSource(LockKind.class)
    void holdQueriesOfTheCallerAndOfAnyOwner(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        assertThat(lock.isHeldByCurrentThreadAsync().get(5, SECONDS)).isFalse();
        assertThat(lock.getHoldCountAsync().get(5, SECONDS)).isZero();
        lock.lock();
        lock.lock();
        try {
            assertThat(lock.isHeldByCurrentThreadAsync().get(5, SECONDS)).isTrue();
            assertThat(lock.getHoldCountAsync().get(5, SECONDS)).isEqualTo(2).isEqualTo(lock.getHoldCount());
            DistributedLock mine = lock.as(LockOwner.ofCurrentThread());
            assertThat(mine.isHeldByCurrentThreadAsync().get(5, SECONDS)).isTrue();
            assertThat(mine.getHoldCountAsync().get(5, SECONDS)).isEqualTo(2);
            DistributedLock other = lock.as(LockOwner.of(OTHER_OWNER));
            assertThat(other.isHeldByCurrentThreadAsync().get(5, SECONDS)).isFalse();
            assertThat(other.getHoldCountAsync().get(5, SECONDS)).isZero();
        } finally {
            lock.unlock();
            lock.unlock();
        }
        assertThat(lock.isHeldByCurrentThreadAsync().get(5, SECONDS)).isFalse();
        Leaks.assertClientIdle(a);
    }

    /** The async hold queries with a raw owner id, deprecated for removal: as the owner's view answers. */
    @ParameterizedTest
    @EnumSource(LockKind.class)
    @SuppressWarnings("removal") // tests the deprecated raw-id forms themselves
    void deprecatedHoldQueriesOfAnOwnerIdAnswerAsItsView(LockKind kind, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(kind, name);
        lock.lock();
        lock.lock();
        try {
            long me = Thread.currentThread().getId();
            DistributedLock other = lock.as(LockOwner.of(OTHER_OWNER));
            assertThat(lock.isHeldByThreadAsync(me).get(5, SECONDS)).isTrue();
            assertThat(lock.getHoldCountAsync(me).get(5, SECONDS)).isEqualTo(2);
            assertThat(other.isHeldByThreadAsync(me).get(5, SECONDS)).as("on another owner's view").isTrue();
            assertThat(other.getHoldCountAsync(me).get(5, SECONDS)).isEqualTo(2);
            assertThat(lock.isHeldByThreadAsync(OTHER_OWNER).get(5, SECONDS)).isFalse();
            assertThat(lock.getHoldCountAsync(OTHER_OWNER).get(5, SECONDS)).isZero();
            assertThat(lock.isHeldByThread(me)).isTrue();
            assertThat(lock.isHeldByThread(OTHER_OWNER)).isFalse();
        } finally {
            lock.unlock();
            lock.unlock();
        }
        assertThat(lock.isHeldByThreadAsync(Thread.currentThread().getId()).get(5, SECONDS)).isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void tryLockAsyncWithAWaitOnlyTakesAWatchdogLease(LockClient a, LockClient b) throws Exception {
        DistributedLock held = b.getLock(name);
        DistributedLock lock = a.getLock(name);
        held.lock();
        assertThat(lock.tryLockAsync(100, MILLISECONDS).get(5, SECONDS)).isFalse();
        assertThat(lock.tryLockAsync(Duration.ofMillis(100)).get(5, SECONDS)).isFalse();
        CompletableFuture<Boolean> waiting = lock.tryLockAsync(10, SECONDS);
        held.unlock();
        assertThat(waiting.get(10, SECONDS)).isTrue();
        assertThat(a.heldLocks()).singleElement().satisfies(h -> assertThat(h.renewedByWatchdog()).isTrue());
        lock.unlockAsync().get(5, SECONDS);
        Leaks.assertClientIdle(a);
    }

    @Test
    void durationOverloadsTakeTheirLeaseAndRefuseNegativeDurationsBeforeSending(LockClient a) throws Exception {
        DistributedLock lock = a.getLock(name);
        lock.lockAsync(Duration.ofSeconds(5)).get(5, SECONDS);
        assertThat(lock.remainTimeToLive()).isBetween(1L, 5_000L);
        assertThat(lock.tryLockAsync(Duration.ZERO, Duration.ofSeconds(20)).get(5, SECONDS)).isTrue();
        assertThat(lock.remainTimeToLive()).isGreaterThan(5_000L);
        lock.unlock();
        lock.unlock();
        assertThatThrownBy(() -> lock.lockAsync(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.tryLockAsync(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryLockAsync(Duration.ZERO, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime");
        assertThat(lock.isLocked()).isFalse();
        Leaks.assertClientIdle(a);
    }

    @Test
    void tokenTwinsGiveTheTokenOfTheNewHold(LockClient a, LockClient b) throws Exception {
        FencedLock fenced = a.getFencedLock(name);
        long first = fenced.lockAndGetTokenAsync().get(5, SECONDS);
        assertThat(fenced.getToken()).isEqualTo(first);
        fenced.unlock();

        long leased = fenced.lockAndGetTokenAsync(5, SECONDS).get(5, SECONDS);
        assertThat(leased).isGreaterThan(first);
        assertThat(fenced.remainTimeToLive()).isBetween(1L, 5_000L);
        fenced.unlock();

        FencedLock other = b.getFencedLock(name);
        long theirs = other.lockAndGetToken();
        assertThat(fenced.tryLockAndGetTokenAsync().get(5, SECONDS)).as("busy").isNull();
        assertThat(fenced.tryLockAndGetTokenAsync(50, LEASE_WATCHDOG, MILLISECONDS).get(5, SECONDS)).isNull();
        CompletableFuture<Long> waiting = fenced.tryLockAndGetTokenAsync(10, LEASE_WATCHDOG, SECONDS);
        other.unlock();
        long next = waiting.get(10, SECONDS);
        assertThat(next).isGreaterThan(theirs);
        assertThat(fenced.getToken()).isEqualTo(next);
        fenced.unlock();
        Leaks.assertClientIdle(a);
    }

    @Test
    void cancellingATokenFutureAbandonsTheWait(LockClient a, LockClient b) throws Exception {
        FencedLock other = b.getFencedLock(name);
        other.lockAndGetToken();
        FencedLock fenced = a.getFencedLock(name);
        CompletableFuture<Long> waiting = fenced.lockAndGetTokenAsync();
        Leaks.awaitWaiters(a, 1);
        assertThat(waiting.cancel(false)).isTrue();
        Leaks.awaitWaiters(a, 0);
        other.unlock();
        Await.during(Duration.ofMillis(300), () -> !fenced.isLocked(), "nobody takes it after the cancel");
        assertThat(waiting).isCancelled();
        Leaks.assertClientIdle(a);
    }

    @Test
    void inspectAsyncReadsWhatInspectReads(RedisServer server, LockClient a) throws Exception {
        DistributedLock lock = a.getLock(name);
        lock.lock();
        try {
            LockInfo info = a.inspectAsync(name).get(5, SECONDS);
            assertThat(info.holders()).isEqualTo(a.inspect(name).holders());
            assertThat(info.type()).isEqualTo(LockInfo.Type.LOCK);
            assertThat(info.holders()).singleElement().satisfies(h -> {
                assertThat(h.clientId()).isEqualTo(a.getId());
                assertThat(h.threadId()).isEqualTo(Thread.currentThread().getId());
            });
        } finally {
            lock.unlock();
        }
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            raw.sync().set(name, "not a lock");
            assertThatThrownBy(() -> a.inspectAsync(name).get(5, SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(LockException.class).hasMessageContaining(name);
            raw.sync().del(name);
        }
        assertThatThrownBy(() -> a.inspectAsync(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
