package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.DistributedLock;
import io.dlock.DistributedSemaphore;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A timed try whose wait ends while its attempt is still unanswered tells a slow Redis from an unavailable one
 * (issue 43, point 4). Redis answers late but is healthy: {@code CLIENT PAUSE … ALL} holds every command for
 * {@value #PAUSE_MS} ms, past a wait of {@value #WAIT_MS} ms and well within the command timeout of
 * {@value #COMMAND_TIMEOUT_MS} ms; the pause is in place before the try starts (its reply came first), so the attempt
 * is unanswered at the deadline every time. The try answers {@code false} (it threw a {@link LockException} "did not
 * answer in time" before), and the grant the attempt brings after the pause is given back: Redis holds nothing of it
 * once the pause is over. Redis unavailable — its connection down, or silent for a command timeout — still fails the
 * try with a {@link LockException}.
 */
@ExtendWith(RedisExtension.class)
@ClientSettings(commandTimeoutMillis = SlowAnswerIT.COMMAND_TIMEOUT_MS)
@Timeout(value = 60, unit = SECONDS)
class SlowAnswerIT {
    static final long COMMAND_TIMEOUT_MS = 2_000;
    static final long WAIT_MS = 100;
    static final long PAUSE_MS = 400;

    /** What tries. */
    enum Kind { LOCK, MULTI_LOCK, SEMAPHORE, LEASED_SEMAPHORE, LATCH }

    /** One timed try on an object of one kind, free (or, for the latch, closed). */
    private interface Try {
        /** @return whether it got what it asked for: the lock, the permit, the latch's opening */
        boolean call(boolean async) throws Exception;
    }

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            all.add(Arguments.of(kind, false));
            all.add(Arguments.of(kind, true));
        }
        return all.stream();
    }

    private String name;

    @BeforeEach
    void setUp(TestInfo info) {
        name = "it:SlowAnswer:" + info.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
    }

    @ParameterizedTest(name = "{0} async={1}")
    @MethodSource("cases")
    void aTryWhoseAttemptRedisAnswersLateAnswersFalseAndGivesTheLateGrantBack(Kind kind, boolean async,
                                                                                LockClient a, RedisServer server)
            throws Exception {
        Try attempt = prepare(kind, a);
        try (RawRedis raw = RawRedis.connect(server.uri())) {
            BooleanSupplier nothingHeld = nothingHeld(kind, raw);
            assertThat(nothingHeld.getAsBoolean()).as("nothing held before the try").isTrue();
            server.command(Duration.ofSeconds(5), "CLIENT", "PAUSE", Long.toString(PAUSE_MS), "ALL");
            long start = System.nanoTime();
            boolean got = unwrapped(attempt, async);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(got).as("what the %d ms try of a %s answered while Redis answered %d ms late", WAIT_MS, kind,
                    PAUSE_MS).isFalse();
            assertThat(tookMs).as("ms until the try returned (it does not wait for the late answer)")
                    .isLessThan(PAUSE_MS);
            Await.until(Duration.ofSeconds(5), nothingHeld::getAsBoolean,
                    () -> "the late grant of the " + kind + " was never given back: " + raw.keys());
        }
    }

    /**
     * Redis unavailable: stopped (the connection is down), or frozen with a command unanswered for a whole command
     * timeout. Then the try fails; a try within the first command timeout of a freeze cannot tell it from a slow
     * answer and answers {@code false} (the rule as documented on the timed tries).
     */
    @Test
    void aTryWhileRedisIsUnavailableFails(LockClient a, RedisServer server) throws Exception {
        DistributedLock lock = a.getLock(name);
        assertThat(lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS)).isTrue();
        lock.unlock();

        server.pause();
        try {
            assertThat(lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS))
                    .as("a try in the first command timeout of a silence: slow, not yet unavailable").isFalse();
            // past a whole command timeout without an answer: Redis is unavailable (Lettuce's timeout here)
            assertThatThrownBy(() -> lock.tryLock(COMMAND_TIMEOUT_MS + 500, TimeUnit.MILLISECONDS))
                    .isInstanceOf(LockException.class);
            // and the rule at a short wait's deadline says so too, the silence having lasted a command timeout
            assertThatThrownBy(() -> lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS))
                    .isInstanceOf(LockException.class).hasMessageContaining("did not answer in time");
        } finally {
            server.resume();
        }
        Await.until(Duration.ofSeconds(10), () -> tryOnce(lock), () -> "the lock never came back after the pause");
        lock.unlock();

        server.stop();
        assertThatThrownBy(() -> lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS))
                .as("a try while the connection is down").isInstanceOf(LockException.class);
    }

    private static boolean tryOnce(DistributedLock lock) {
        try {
            return lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (LockException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static boolean unwrapped(Try attempt, boolean async) throws Exception {
        try {
            return attempt.call(async);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private Try prepare(Kind kind, LockClient a) {
        Duration wait = Duration.ofMillis(WAIT_MS);
        return switch (kind) {
            case LOCK -> lockTry(a.getLock(name));
            case MULTI_LOCK -> lockTry(a.getMultiLock(a.getLock(name + ":a"), a.getLock(name + ":b")));
            case SEMAPHORE -> {
                DistributedSemaphore semaphore = a.getSemaphore(name);
                assertThat(semaphore.trySetPermits(1)).isTrue();
                yield async -> async ? semaphore.tryAcquireAsync(1, wait).get() : semaphore.tryAcquire(1, wait);
            }
            case LEASED_SEMAPHORE -> {
                LeasedSemaphore semaphore = a.getLeasedSemaphore(name);
                assertThat(semaphore.trySetPermits(1)).isTrue();
                yield async -> (async ? semaphore.tryAcquireAsync(wait).get() : semaphore.tryAcquire(wait))
                        .isPresent();
            }
            case LATCH -> {
                DistributedCountDownLatch latch = a.getCountDownLatch(name);
                assertThat(latch.trySetCount(1, Duration.ofMinutes(1))).isTrue();
                yield async -> async ? latch.awaitAsync(wait).get() : latch.await(wait);
            }
        };
    }

    private static Try lockTry(DistributedLock lock) {
        return async -> async ? lock.tryLockAsync(WAIT_MS, TimeUnit.MILLISECONDS).get()
                : lock.tryLock(WAIT_MS, TimeUnit.MILLISECONDS);
    }

    /** @return whether Redis holds nothing of the object: no lock, every permit back, the latch's count as set */
    private BooleanSupplier nothingHeld(Kind kind, RawRedis raw) {
        return switch (kind) {
            case LOCK -> () -> !raw.exists(name);
            case MULTI_LOCK -> () -> !raw.exists(name + ":a") && !raw.exists(name + ":b");
            case SEMAPHORE -> () -> "1".equals(raw.sync().get(name));
            case LEASED_SEMAPHORE -> () -> "1".equals(raw.sync().get(name))
                    && raw.sync().zcard("{" + name + "}:timeout") == 0;
            case LATCH -> () -> "1".equals(raw.sync().get(name));
        };
    }
}
