package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exclusion under a storm of cancels, on one lock name: two dlock clients with {@value #CONCURRENCY} concurrent
 * reactive subscriptions each ({@code flatMap}), every one a {@code withLock} ended by a random shape — completed,
 * {@code timeout} of 1-30 ms, {@code take(n)}, a {@code switchMap} switch, a {@code dispose()} after 1-30 ms — so
 * that cancels land while waiting, across the grant and inside the work; beside them a thread of the blocking core
 * API, a Redisson {@code RLock} thread and a Redisson {@code RLockReactive} loop. Every holder counts itself inside
 * ({@link Occupancy}); a reactive work counts until its own cancel clean-up (1 ms) has ended. Never two inside at
 * once; the lock free at the end; no blocking call on a checked thread ({@link NoBlocking}, after the test).
 * Before the hold scope released after the work's cancel (issue 43, point 1), two reactive holders were inside at
 * once about once per 3,500 entries.
 */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@Timeout(value = 120, unit = SECONDS)
class ReactiveExclusionStressIT {
    private static final int CONCURRENCY = 64;
    /** Reactive works entered before the storm stops taking new subscriptions. */
    private static final int ENTRIES = 3_000;
    /** The storm stops taking new subscriptions after this, whatever the entries. */
    private static final Duration BUDGET = Duration.ofSeconds(45);
    private static final Duration SETTLE = Duration.ofSeconds(20);
    private static final long CLEAN_UP_NANOS = 1_000_000;
    private static final long REDISSON_OWNER = 4343;

    /** How a subscription ends. */
    enum End { COMPLETE, TIMEOUT, TAKE, SWITCH_MAP, DISPOSE }

    private final String name = "reactive-stress:exclusion";
    private RedissonClient redisson;

    @BeforeEach
    void setUp(RedisServer redis) {
        Config config = new Config();
        config.setLockWatchdogTimeout(5000);
        config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
        redisson = Redisson.create(config);
    }

    @AfterEach
    void tearDown() {
        if (redisson != null) {
            redisson.shutdown();
        }
    }

    @Test
    void reactiveHoldersUnderCancelsOfEveryShapeNeverOverlapEachOtherNorBlockingNorRedissonHolders(
            LockClient a, LockClient b, LockClient blocking, RedisServer redis) throws Exception {
        Occupancy section = new Occupancy(1);
        Map<End, AtomicInteger> ends = new LinkedHashMap<>();
        for (End end : End.values()) {
            ends.put(end, new AtomicInteger());
        }
        AtomicInteger cancelledInside = new AtomicInteger();
        AtomicInteger reactiveEntries = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Map<String, AtomicInteger> besides = new LinkedHashMap<>();
        List<CompletableFuture<Void>> holders = new ArrayList<>();
        holders.add(beside("blocking dlock", besides, stop, () -> {
            DistributedLock lock = blocking.getLock(name);
            lock.lock();
            try {
                inside(section, "blocking dlock");
            } finally {
                lock.unlock();
            }
        }));
        holders.add(beside("Redisson RLock", besides, stop, () -> {
            RLock lock = redisson.getLock(name);
            lock.lock();
            try {
                inside(section, "Redisson RLock");
            } finally {
                lock.unlock();
            }
        }));
        RLockReactive theirs = redisson.reactive().getLock(name);
        AtomicInteger reactiveRedisson = new AtomicInteger();
        besides.put("Redisson RLockReactive", reactiveRedisson);
        holders.add(Mono.defer(() -> theirs.lock(-1, MILLISECONDS, REDISSON_OWNER)
                        .then(Mono.fromRunnable(() -> {
                            inside(section, "Redisson RLockReactive");
                            reactiveRedisson.incrementAndGet();
                        }))
                        .then(theirs.unlock(REDISSON_OWNER)))
                .repeat(() -> !stop.get())
                .then().toFuture());

        long start = System.nanoTime();
        List<Flux<Void>> clients = new ArrayList<>();
        for (LockClient client : List.of(a, b)) {
            String who = client == a ? "reactive a " : "reactive b ";
            ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);
            clients.add(Flux.range(0, Integer.MAX_VALUE)
                    .takeWhile(i -> reactiveEntries.get() < ENTRIES
                            && Await.millisSince(start) < BUDGET.toMillis())
                    .flatMap(i -> {
                        End end = End.values()[ThreadLocalRandom.current().nextInt(End.values().length)];
                        ends.get(end).incrementAndGet();
                        return ended(end, lock, work -> section.counted(work
                                .doOnSubscribe(s -> reactiveEntries.incrementAndGet())
                                .doOnCancel(() -> {
                                    cancelledInside.incrementAndGet();
                                    CleanUpProbe.spin(CLEAN_UP_NANOS);
                                }), who + end)).subscribeOn(Schedulers.parallel());
                    }, CONCURRENCY));
        }
        Flux.merge(clients).then().block(BUDGET.plus(SETTLE));
        long stormMs = Await.millisSince(start);
        stop.set(true);
        for (CompletableFuture<Void> holder : holders) {
            assertThat(holder).succeedsWithin(SETTLE);
        }

        System.out.printf("exclusion stress: %d reactive entries (%d cancelled inside the work), subscriptions %s, "
                        + "beside %s; at most %d inside; %d ms%n", reactiveEntries.get(), cancelledInside.get(), ends,
                besides, section.most(), stormMs);
        assertThat(section.most()).as("holders inside at once (a reactive work counts until its cancel clean-up "
                + "has ended) over " + section.entries() + " entries; the first time more were inside: "
                + section.firstExcess()).isEqualTo(1);
        assertThat(reactiveEntries.get()).as("reactive works entered within " + BUDGET).isGreaterThanOrEqualTo(ENTRIES);
        assertThat(cancelledInside.get()).as("cancels that landed inside the work").isPositive();
        assertThat(besides).as("entries of the holders beside").allSatisfy((holder, entries) ->
                assertThat(entries.get()).as(holder).isPositive());
        Await.until(SETTLE, () -> !ReactiveLockIT.exists(redis, name) && a.heldLocks().isEmpty()
                        && b.heldLocks().isEmpty() && blocking.heldLocks().isEmpty(),
                () -> "the lock free at the end: exists " + ReactiveLockIT.exists(redis, name) + ", held by a "
                        + a.heldLocks() + ", b " + b.heldLocks() + ", blocking " + blocking.heldLocks());
    }

    /**
     * One subscription to {@code withLock} over a work of 0-4 ms (or ticking every ms for {@code take}), ended as
     * {@code end} says; completes empty.
     */
    private static Mono<Void> ended(End end, ReactiveLock lock,
                                    java.util.function.Function<Flux<Long>, Flux<Long>> counted) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        Flux<Long> work = counted.apply(Mono.delay(Duration.ofMillis(random.nextInt(5))).flux());
        Duration cancelAfter = Duration.ofMillis(1 + random.nextInt(30));
        return switch (end) {
            case COMPLETE -> lock.withLock(hold -> work).then();
            case TIMEOUT -> lock.withLock(hold -> work).timeout(cancelAfter)
                    .onErrorResume(TimeoutException.class, timedOut -> Flux.empty()).then();
            case TAKE -> lock.withLock(hold -> counted.apply(Flux.interval(Duration.ofMillis(1))))
                    .take(1 + random.nextInt(3)).then();
            case SWITCH_MAP -> Flux.concat(Mono.just(1L), Mono.delay(cancelAfter).thenReturn(2L))
                    .switchMap(i -> i == 1L ? lock.withLock(hold -> work) : Flux.<Long>empty()).then();
            case DISPOSE -> Mono.create(sink -> {
                Disposable subscription = lock.withLock(hold -> work).subscribe(null, sink::error, sink::success);
                Disposable disposer = Schedulers.parallel().schedule(() -> {
                    subscription.dispose();
                    sink.success();
                }, cancelAfter.toMillis(), MILLISECONDS);
                sink.onDispose(() -> {
                    disposer.dispose();
                    subscription.dispose();
                });
            });
        };
    }

    /** A holder's time inside: entered, 0.2 ms, left. */
    private static void inside(Occupancy section, String who) {
        String entry = section.enter(who);
        try {
            CleanUpProbe.spin(200_000);
        } finally {
            section.leave(entry);
        }
    }

    /** Runs {@code hold} again and again on a thread of its own until {@code stop}, counting in {@code besides}. */
    private static CompletableFuture<Void> beside(String holder, Map<String, AtomicInteger> besides,
                                                  AtomicBoolean stop, Runnable hold) {
        AtomicInteger entries = new AtomicInteger();
        besides.put(holder, entries);
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                while (!stop.get()) {
                    hold.run();
                    entries.incrementAndGet();
                }
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "stress-" + holder);
        thread.setDaemon(true);
        thread.start();
        return done;
    }
}
