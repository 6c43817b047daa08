package io.dlock.reactor;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonReactiveClient;
import org.redisson.config.Config;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * dlock's reactive lock and Redisson 4.7.0's reactive lock ({@code RLockReactive}) on one name: they exclude each
 * other and each one's release wakes the other's waiter (the wire of protocol.md §2).
 */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@Timeout(value = 60, unit = SECONDS)
class ReactiveRedissonInteropIT {
    private static final Duration VERIFY = Duration.ofSeconds(15);
    /** Redisson's reactive API names the owner by a thread id; these are the owners of the test. */
    private static final long REDISSON_OWNER = 4242;

    private String name;
    private RedissonReactiveClient redisson;

    @BeforeEach
    void setUp(RedisServer redis, TestInfo info) {
        name = "reactive-interop:" + info.getTestMethod().orElseThrow().getName();
        Config config = new Config();
        config.setLockWatchdogTimeout(5000);
        config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
        redisson = Redisson.create(config).reactive();
    }

    @AfterEach
    void tearDown() {
        if (redisson != null) {
            redisson.shutdown();
        }
    }

    @Test
    void eachExcludesTheOther(LockClient client, RedisServer redis) {
        RLockReactive theirs = redisson.getLock(name);
        ReactiveLock ours = ReactiveLockClient.of(client).getLock(name);

        StepVerifier.create(theirs.lock(-1, MILLISECONDS, REDISSON_OWNER)).expectComplete().verify(VERIFY);
        StepVerifier.create(ours.tryLock()).as("dlock while Redisson holds").expectComplete().verify(VERIFY);
        StepVerifier.create(ours.tryLock(Duration.ofMillis(200))).as("dlock waiting while Redisson holds")
                .expectComplete().verify(VERIFY);
        StepVerifier.create(ours.isLocked()).expectNext(true).expectComplete().verify(VERIFY);
        StepVerifier.create(theirs.unlock(REDISSON_OWNER)).expectComplete().verify(VERIFY);
        assertThat(ReactiveLockIT.exists(redis, name)).isFalse();

        StepVerifier.create(ours.withLock(hold -> Mono.zip(
                        theirs.tryLock(0, -1, MILLISECONDS, REDISSON_OWNER),
                        theirs.tryLock(200, -1, MILLISECONDS, REDISSON_OWNER),
                        theirs.isLocked())))
                .assertNext(answers -> {
                    assertThat(answers.getT1()).as("Redisson while dlock holds").isFalse();
                    assertThat(answers.getT2()).as("Redisson waiting while dlock holds").isFalse();
                    assertThat(answers.getT3()).isTrue();
                })
                .expectComplete().verify(VERIFY);
        assertThat(ReactiveLockIT.exists(redis, name)).isFalse();
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aRedissonReleaseWakesADlockSubscriptionAndBack(LockClient client, RedisServer redis) {
        RLockReactive theirs = redisson.getLock(name);
        ReactiveLock ours = ReactiveLockClient.of(client).getLock(name);
        StepVerifier.create(theirs.lock(60_000, MILLISECONDS, REDISSON_OWNER)).expectComplete().verify(VERIFY);

        long[] releasedAt = new long[1];
        ReactiveHold[] received = new ReactiveHold[1];
        long listening = Subscribers.count(redis, name);
        StepVerifier.create(ours.lock().publishOn(Schedulers.parallel()))
                .expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening))
                .then(() -> {
                    releasedAt[0] = System.nanoTime();
                    theirs.unlock(REDISSON_OWNER).subscribe();
                })
                .consumeNextWith(hold -> received[0] = hold)
                .expectComplete()
                .verify(VERIFY);
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt[0])).as("woken by Redisson's unlock message")
                .isLessThan(Duration.ofSeconds(1));
        ReactiveHold hold = received[0];
        StepVerifier.create(theirs.tryLock(0, -1, MILLISECONDS, REDISSON_OWNER)).expectNext(false)
                .expectComplete().verify(VERIFY);
        // Redisson waits; dlock's release wakes it
        long redissonListening = Subscribers.count(redis, name);
        StepVerifier.create(theirs.tryLock(10_000, 60_000, MILLISECONDS, REDISSON_OWNER))
                .expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, redissonListening))
                .then(() -> hold.unlock().subscribeOn(Schedulers.parallel()).subscribe())
                .expectNext(true)
                .expectComplete()
                .verify(VERIFY);
        StepVerifier.create(ours.tryLock()).as("Redisson holds again").expectComplete().verify(VERIFY);
        StepVerifier.create(theirs.unlock(REDISSON_OWNER)).expectComplete().verify(VERIFY);
        assertThat(ReactiveLockIT.exists(redis, name)).isFalse();
    }

    @Test
    void aCancelledDlockWaitDoesNotKeepRedissonOut(LockClient client, RedisServer redis) {
        RLockReactive theirs = redisson.getLock(name);
        ReactiveLock ours = ReactiveLockClient.of(client).getLock(name);
        StepVerifier.create(theirs.lock(60_000, MILLISECONDS, REDISSON_OWNER)).expectComplete().verify(VERIFY);
        long listening = Subscribers.count(redis, name);
        StepVerifier.create(ours.lock()).expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening)).thenCancel()
                .verify(VERIFY);
        StepVerifier.create(theirs.unlock(REDISSON_OWNER)).expectComplete().verify(VERIFY);
        StepVerifier.create(theirs.tryLock(1000, 60_000, MILLISECONDS, REDISSON_OWNER + 1)).expectNext(true)
                .expectComplete().verify(VERIFY);
        StepVerifier.create(theirs.unlock(REDISSON_OWNER + 1)).expectComplete().verify(VERIFY);
        assertThat(client.heldLocks()).isEmpty();
        assertThat(ReactiveLockIT.exists(redis, name)).isFalse();
    }
}
