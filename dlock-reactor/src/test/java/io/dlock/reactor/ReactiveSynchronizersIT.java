package io.dlock.reactor;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The reactive semaphores and latch against a real Redis, under BlockHound. */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@Timeout(value = 60, unit = SECONDS)
class ReactiveSynchronizersIT {
    private static final Duration VERIFY = Duration.ofSeconds(15);
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private String name;

    @BeforeEach
    void name(TestInfo info) {
        name = "reactive:" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void withPermitsNeverLetsMoreThanThePermitsIn(LockClient a, LockClient b) {
        int permits = 3;
        ReactiveSemaphore first = ReactiveLockClient.of(a).getSemaphore(name);
        ReactiveSemaphore second = ReactiveLockClient.of(b).getSemaphore(name);
        StepVerifier.create(first.trySetPermits(permits)).expectNext(true).expectComplete().verify(VERIFY);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Flux<Integer>> workers = new ArrayList<>();
        for (ReactiveSemaphore semaphore : List.of(first, second)) {
            for (int w = 0; w < 5; w++) {
                workers.add(Flux.range(0, 6).concatMap(i -> semaphore.withPermits(1, () -> Mono.fromCallable(() -> {
                    most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    return i;
                }).delayElement(Duration.ofMillis(3)).doOnNext(x -> inside.decrementAndGet()))));
            }
        }
        StepVerifier.create(Flux.merge(workers).subscribeOn(Schedulers.parallel()).count())
                .expectNext(60L).expectComplete().verify(Duration.ofSeconds(45));
        assertThat(most.get()).as("most subscriptions inside at once").isBetween(1, permits);
        StepVerifier.create(first.availablePermits()).expectNext(permits).expectComplete().verify(VERIFY);
    }

    @Test
    void aCancelledSemaphoreWaitTakesNothing(LockClient a, RedisServer redis) {
        ReactiveSemaphore semaphore = ReactiveLockClient.of(a).getSemaphore(name);
        StepVerifier.create(semaphore.trySetPermits(1).then(semaphore.tryAcquire())).expectNext(true)
                .expectComplete().verify(VERIFY);
        long listening = Subscribers.count(redis, name);
        StepVerifier.create(semaphore.acquire()).expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening))
                .thenCancel().verify(VERIFY);
        StepVerifier.create(semaphore.release(1).then(semaphore.availablePermits())).expectNext(1)
                .expectComplete().verify(VERIFY);
        Await.during(Duration.ofMillis(300), () -> Integer.valueOf(1).equals(semaphore.availablePermits()
                .block(VERIFY)), "the cancelled wait took no permit");
        StepVerifier.create(semaphore.tryAcquire(2, Duration.ofMillis(100))).expectNext(false).expectComplete()
                .verify(VERIFY);
        assertThatThrownBy(() -> semaphore.acquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("permits");
    }

    @Test
    void leasedPermitsAreHeldWhileTheWorkRunsAndCancelGivesThemBack(LockClient a, RedisServer redis) {
        ReactiveLeasedSemaphore semaphore = ReactiveLockClient.of(a).getLeasedSemaphore(name);
        StepVerifier.create(semaphore.trySetPermits(1)).expectNext(true).expectComplete().verify(VERIFY);

        StepVerifier.create(semaphore.withPermit(permit -> semaphore.availablePermits()
                        .map(available -> available + " " + permit.semaphoreName())))
                .expectNext("0 " + name).expectComplete().verify(VERIFY);
        StepVerifier.create(semaphore.availablePermits()).expectNext(1).expectComplete().verify(VERIFY);

        StepVerifier.create(semaphore.withPermit(permit -> Flux.interval(Duration.ofMillis(10))))
                .expectNextCount(2).thenCancel().verify(VERIFY);
        Await.until(SETTLE, () -> Integer.valueOf(1).equals(semaphore.availablePermits().block(VERIFY)),
                "the permit back after the cancel");

        Permit held = semaphore.acquire(Duration.ofSeconds(30)).block(VERIFY);
        StepVerifier.create(semaphore.tryAcquire(Duration.ofMillis(100))).expectComplete().verify(VERIFY);
        // the timed wait's subscription ends after it (its UNSUBSCRIBE is on its way, or the channel lingers): counted
        // while it ends, a later re-subscribe could leave the count where it was
        Await.until(SETTLE, () -> Subscribers.count(redis, name) == 0, "the timed wait's subscription ended");
        long listening = Subscribers.count(redis, name);
        StepVerifier.create(semaphore.acquire()).expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening))
                .thenCancel().verify(VERIFY);
        StepVerifier.create(semaphore.release(held)).expectNext(true).expectComplete().verify(VERIFY);
        Await.during(Duration.ofMillis(300), () -> Integer.valueOf(1).equals(semaphore.availablePermits()
                .block(VERIFY)), "the cancelled wait holds no permit");

        StepVerifier.create(semaphore.addPermits(1).then(semaphore.acquire(2)).flatMap(permits -> {
                    assertThat(permits).hasSize(2);
                    return Flux.fromIterable(permits).flatMap(semaphore::release).all(Boolean::booleanValue);
                }))
                .expectNext(true).expectComplete().verify(VERIFY);
        StepVerifier.create(semaphore.acquiredPermits()).expectNext(0).expectComplete().verify(VERIFY);
    }

    @Test
    void everyArgumentRuleIsAppliedWhenTheMonoIsMade(LockClient a) {
        ReactiveLockClient locks = ReactiveLockClient.of(a);
        ReactiveSemaphore semaphore = locks.getSemaphore(name);
        ReactiveLeasedSemaphore leased = locks.getLeasedSemaphore(name + ":leased");
        ReactiveCountDownLatch latch = locks.getCountDownLatch(name + ":latch");
        Map<String, ThrowingCallable> calls = new LinkedHashMap<>();
        calls.put("leased acquire(0)", () -> leased.acquire(0));
        calls.put("leased acquire(MAX_PERMITS_AT_ONCE + 1)",
                () -> leased.acquire(LeasedSemaphore.MAX_PERMITS_AT_ONCE + 1));
        calls.put("leased trySetPermits(-1)", () -> leased.trySetPermits(-1));
        calls.put("leased setPermits(-1)", () -> leased.setPermits(-1));
        calls.put("leased addPermits(0)", () -> leased.addPermits(0));
        calls.put("leased tryAcquire(-1 ms)", () -> leased.tryAcquire(Duration.ofMillis(-1)));
        calls.put("leased acquire(0 ms lease)", () -> leased.acquire(Duration.ZERO));
        calls.put("semaphore acquire(0)", () -> semaphore.acquire(0));
        calls.put("semaphore tryAcquire(0)", () -> semaphore.tryAcquire(0));
        calls.put("semaphore tryAcquire(1, -1 ms)", () -> semaphore.tryAcquire(1, Duration.ofMillis(-1)));
        calls.put("semaphore release(0)", () -> semaphore.release(0));
        calls.put("semaphore withPermits(0, work)", () -> semaphore.withPermits(0, Flux::empty));
        calls.put("semaphore trySetPermits(-1)", () -> semaphore.trySetPermits(-1));
        calls.put("semaphore addPermits(0)", () -> semaphore.addPermits(0));
        calls.put("latch trySetCount(0)", () -> latch.trySetCount(0));
        calls.put("latch trySetCount(MAX_COUNT + 1)", () -> latch.trySetCount(DistributedCountDownLatch.MAX_COUNT + 1));
        calls.put("latch trySetCount(1, 0 ms)", () -> latch.trySetCount(1, Duration.ZERO));
        calls.put("latch await(-1 ms)", () -> latch.await(Duration.ofMillis(-1)));
        calls.put("client inspect(blank)", () -> locks.inspect(" "));
        calls.forEach((call, made) -> assertThatThrownBy(made).as(call).isInstanceOf(IllegalArgumentException.class));
        assertThatThrownBy(() -> locks.inspect(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> leased.acquire(LeasedSemaphore.MAX_PERMITS_AT_ONCE + 1))
                .hasMessageContaining(name).hasMessageContaining("permits");
        // what the rules let through is a Mono the core takes: a negative count on a counting semaphore
        StepVerifier.create(semaphore.setPermits(-1).then(semaphore.availablePermits())).expectNext(-1)
                .expectComplete().verify(VERIFY);
    }

    @Test
    void theLatchOpensItsAwaitersAndACancelledAwaitEnds(LockClient a, LockClient b, RedisServer redis) {
        ReactiveCountDownLatch ours = ReactiveLockClient.of(a).getCountDownLatch(name);
        ReactiveCountDownLatch theirs = ReactiveLockClient.of(b).getCountDownLatch(name);
        StepVerifier.create(ours.trySetCount(2)).expectNext(true).expectComplete().verify(VERIFY);
        StepVerifier.create(ours.await(Duration.ofMillis(100))).expectNext(false).expectComplete().verify(VERIFY);
        // the client listens on the latch's channel while an awaiter waits: its awaiters share one subscription, which
        // may still be there from the timed await above (it lingers), so "subscribed" is all Redis can show
        StepVerifier.create(ours.await()).expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, 0))
                .thenCancel().verify(VERIFY);
        StepVerifier.create(ours.await())
                .expectSubscription()
                .then(() -> theirs.countDown().then(theirs.countDown()).subscribe())
                .expectComplete()
                .verify(VERIFY);
        StepVerifier.create(theirs.getCount()).expectNext(0L).expectComplete().verify(VERIFY);
        StepVerifier.create(ours.inspect().map(info -> info.name())).expectNext(name).expectComplete()
                .verify(VERIFY);
    }
}
