package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.Permit;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hold scope's cancel rule ({@code Holding}): on every shape of cancel ({@link CancelShape}), the work is
 * cancelled first and its cancellation runs to its end, then the hold (or the permits) is given back. Each round's
 * work has a cancel clean-up of 30 ms during which another client tries to get in with the blocking core API
 * ({@link CleanUpProbe}): it must never succeed. Before the rule, the give-back was sent before the cancel reached the
 * work, and the other client got in during every clean-up.
 */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@Timeout(value = 120, unit = SECONDS)
class ReactiveHoldScopeIT {
    private static final Duration SETTLE = Duration.ofSeconds(10);
    private static final int ROUNDS = 10;

    private String name;

    @BeforeEach
    void name(TestInfo info) {
        name = "scope:" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void withLockReleasesOnlyAfterTheCancelledWorkCleanedUp(LockClient a, LockClient b, RedisServer redis) {
        ReactiveLock lock = ReactiveLockClient.of(a).getLock(name);
        DistributedLock theirs = b.getLock(name);
        everyShape(work -> lock.withLock(hold -> work), () -> gotIn(theirs),
                () -> a.heldLocks().isEmpty() && !ReactiveLockIT.exists(redis, name));
    }

    @Test
    void usingReleasesOnlyAfterTheCancelledWorkCleanedUp(LockClient a, LockClient b, RedisServer redis) {
        ReactiveLock lock = ReactiveLockClient.of(a).getFencedLock(name);
        DistributedLock theirs = b.getFencedLock(name);
        everyShape(work -> ReactiveLock.using(lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(30)),
                        hold -> work), () -> gotIn(theirs),
                () -> a.heldLocks().isEmpty() && !ReactiveLockIT.exists(redis, name));
    }

    @Test
    void withPermitReleasesOnlyAfterTheCancelledWorkCleanedUp(LockClient a, LockClient b) {
        ReactiveLeasedSemaphore semaphore = ReactiveLockClient.of(a).getLeasedSemaphore(name);
        semaphore.trySetPermits(1).block(SETTLE);
        var theirs = b.getLeasedSemaphore(name);
        everyShape(work -> semaphore.withPermit(permit -> work), () -> {
            Optional<Permit> permit = theirs.tryAcquire();
            permit.ifPresent(Permit::release);
            return permit.isPresent();
        }, () -> theirs.availablePermits() == 1);
    }

    @Test
    void withPermitsReleasesOnlyAfterTheCancelledWorkCleanedUp(LockClient a, LockClient b) {
        ReactiveSemaphore semaphore = ReactiveLockClient.of(a).getSemaphore(name);
        semaphore.trySetPermits(2).block(SETTLE);
        var theirs = b.getSemaphore(name);
        everyShape(work -> semaphore.withPermits(2, () -> work), () -> {
            boolean took = theirs.tryAcquire();
            if (took) {
                theirs.release(1);
            }
            return took;
        }, () -> theirs.availablePermits() == 2);
    }

    @Test
    void aHoldLostWhileTheWorkRunsCancelsTheWorkThenFailsWithLockLostException(
            @ClientSettings(watchdogTimeoutMillis = 3000) LockClient a, LockClient b, RedisServer redis) {
        ReactiveLock lock = ReactiveLockClient.of(a).getLock(name);
        Sinks.One<ReactiveHold> entered = Sinks.one();
        AtomicBoolean workCancelled = new AtomicBoolean();
        StepVerifier.create(lock.withLock(hold -> Flux.<String>never()
                        .doOnSubscribe(s -> entered.tryEmitValue(hold))
                        .doOnCancel(() -> workCancelled.set(true))))
                .expectSubscription()
                .then(() -> {
                    entered.asMono().block(SETTLE);
                    assertThat(b.getLock(name).forceUnlock()).as("another client removes the hold").isTrue();
                })
                .expectErrorSatisfies(error -> {
                    assertThat(error).isInstanceOf(LockLostException.class).hasMessageContaining(name)
                            .hasMessageContaining("REMOVED");
                    assertThat(workCancelled).as("the work was cancelled before the error").isTrue();
                })
                .verify(SETTLE);
        assertThat(a.heldLocks()).isEmpty();
        assertThat(ReactiveLockIT.exists(redis, name)).isFalse();
    }

    @Test
    void aPermitLostWhileTheWorkRunsCancelsTheWorkThenFailsWithLockLostException(
            @ClientSettings(watchdogTimeoutMillis = 3000) LockClient a, LockClient b) {
        ReactiveLeasedSemaphore semaphore = ReactiveLockClient.of(a).getLeasedSemaphore(name);
        semaphore.trySetPermits(1).block(SETTLE);
        Sinks.One<Permit> entered = Sinks.one();
        AtomicBoolean workCancelled = new AtomicBoolean();
        StepVerifier.create(semaphore.withPermit(permit -> Flux.<String>never()
                        .doOnSubscribe(s -> entered.tryEmitValue(permit))
                        .doOnCancel(() -> workCancelled.set(true))))
                .expectSubscription()
                .then(() -> assertThat(b.getLeasedSemaphore(name).tryRelease(entered.asMono().block(SETTLE).id()))
                        .as("another client releases the permit's id").isTrue())
                .expectErrorSatisfies(error -> {
                    assertThat(error).isInstanceOf(LockLostException.class).hasMessageContaining(name);
                    assertThat(workCancelled).as("the work was cancelled before the error").isTrue();
                })
                .verify(SETTLE);
        StepVerifier.create(semaphore.availablePermits()).expectNext(1).expectComplete().verify(SETTLE);
    }

    /**
     * {@link #ROUNDS} rounds of every shape; after each, waits until everything is given back.
     *
     * @param anotherGetsIn another client's one attempt (giving back what it got)
     * @param free          whether what the scope held is free again
     */
    private static void everyShape(Function<Flux<Long>, Flux<Long>> scoped, BooleanSupplier anotherGetsIn,
                                   BooleanSupplier free) {
        Map<CancelShape, String> outcomes = new LinkedHashMap<>();
        int gotIn = 0;
        for (CancelShape shape : CancelShape.values()) {
            CleanUpProbe probe = new CleanUpProbe(anotherGetsIn);
            for (int i = 0; i < ROUNDS; i++) {
                shape.round(scoped, probe);
                Await.until(SETTLE, free::getAsBoolean, () -> shape + ": given back after the round");
            }
            outcomes.put(shape, probe.gotIn() + " of " + probe.cleanUps() + " clean-ups");
            assertThat(probe.attemptFailed()).as(shape + ": the other client's attempt").isNull();
            assertThat(probe.cleanUps()).as(shape + ": a cancel landed inside the work in every round")
                    .isEqualTo(ROUNDS);
            gotIn += probe.gotIn();
        }
        assertThat(gotIn).as("another client got in during the cancelled work's clean-up: " + outcomes).isZero();
    }

    private static boolean gotIn(DistributedLock theirs) {
        boolean locked = theirs.tryLock();
        if (locked) {
            theirs.unlock();
        }
        return locked;
    }
}
