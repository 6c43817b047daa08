package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reactive locks against a real Redis, under BlockHound: exclusion between subscriptions and clients, one owner
 * per subscription, cancellation that leaves nothing held, {@code withLock} releasing on complete, error and cancel.
 */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@Timeout(value = 60, unit = SECONDS)
class ReactiveLockIT {
    private static final Duration SETTLE = Duration.ofSeconds(5);
    private static final Duration VERIFY = Duration.ofSeconds(15);
    /**
     * Rounds of the cancel race: with {@code Flux.usingWhen} inside withLock, 40 rounds lost a cancel 1 run in 4; a
     * grant dropped by the sink when a cancel overtook its delivery ({@code Grants}) was lost about once in 800 rounds.
     */
    private static final int ROUNDS = 120;

    private String name;

    @BeforeEach
    void name(TestInfo info) {
        name = "reactive:" + info.getTestMethod().orElseThrow().getName();
    }

    @Test
    void blockHoundIsWatching(LockClient client) {
        // the check of every other test: a blocking call on a thread of the reactive path fails
        StepVerifier.create(Mono.fromCallable(() -> {
                    Thread.sleep(1);
                    return 1;
                }).subscribeOn(Schedulers.parallel()))
                .expectError(BlockingOperationError.class)
                .verify(VERIFY);
        // as the tests do: a hold moved to a parallel thread, where a blocking call is caught
        ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);
        StepVerifier.create(lock.tryLock(Duration.ofSeconds(10))
                        .publishOn(Schedulers.parallel())
                        .map(hold -> {
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return hold;
                        }))
                .as("a blocking call on a parallel thread")
                .expectError(BlockingOperationError.class)
                .verify(VERIFY);
        StepVerifier.create(lock.forceUnlock()).expectNext(true).expectComplete().verify(VERIFY);
        assertThat(NoBlocking.drain()).as("both blocking calls collected, for the check after each test").hasSize(2);
    }

    @Test
    void twoClientsAndManySubscriptionsNeverOverlap(LockClient a, LockClient b, RedisServer redis) {
        List<ReactiveLock> locks = List.of(ReactiveLockClient.of(a).getLock(name),
                ReactiveLockClient.of(b).getLock(name));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger entries = new AtomicInteger();
        int perClient = 6;
        int rounds = 8;
        List<Flux<Integer>> workers = new ArrayList<>();
        for (ReactiveLock lock : locks) {
            for (int w = 0; w < perClient; w++) {
                workers.add(Flux.range(0, rounds).concatMap(round -> lock.withLock(hold -> Mono.fromCallable(() -> {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    entries.incrementAndGet();
                    return round;
                }).delayElement(Duration.ofMillis(2)).doOnNext(r -> inside.decrementAndGet()))));
            }
        }
        StepVerifier.create(Flux.merge(workers).subscribeOn(Schedulers.parallel()).count())
                .expectNext((long) locks.size() * perClient * rounds)
                .expectComplete()
                .verify(Duration.ofSeconds(45));
        assertThat(overlaps).as("subscriptions inside at once").hasValue(0);
        assertThat(entries).hasValue(locks.size() * perClient * rounds);
        assertThat(a.heldLocks()).isEmpty();
        assertThat(b.heldLocks()).isEmpty();
        assertThat(exists(redis, name)).isFalse();
    }

    @Test
    void eachSubscriptionIsAnOwnerOfItsOwn(LockClient client) {
        ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);
        Mono<ReactiveHold> tryLock = lock.tryLock();
        ReactiveHold first = tryLock.block(VERIFY);
        assertThat(first).isNotNull();
        StepVerifier.create(tryLock).as("the same Mono, subscribed again: another owner, not a re-entry")
                .expectComplete().verify(VERIFY);
        assertThat(first.owner().id()).as("a new owner, not a thread").isNegative();
        LockInfo info = lock.inspect().block(VERIFY);
        assertThat(info.holders()).singleElement().satisfies(holder -> {
            assertThat(holder.clientId()).isEqualTo(client.getId());
            assertThat(holder.threadId()).isEqualTo(first.owner().id());
            assertThat(holder.holdCount()).isEqualTo(1);
        });
        StepVerifier.create(first.unlock()).expectComplete().verify(VERIFY);
        StepVerifier.create(first.unlock()).as("a second unlock of one hold sends nothing").expectComplete()
                .verify(VERIFY);

        ReactiveHold second = tryLock.block(VERIFY);
        assertThat(second).isNotNull();
        assertThat(second.owner()).isNotEqualTo(first.owner());
        StepVerifier.create(second.unlock()).expectComplete().verify(VERIFY);
        StepVerifier.create(lock.isLocked()).expectNext(false).expectComplete().verify(VERIFY);
    }

    @Test
    void aHoldTravelsAcrossThreads(LockClient client) {
        ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);
        StepVerifier.create(lock.lock()
                        .publishOn(Schedulers.parallel())
                        .delayUntil(hold -> Mono.delay(Duration.ofMillis(20)))   // another parallel thread
                        .publishOn(Schedulers.single())
                        .flatMap(hold -> hold.unlock().thenReturn(hold.owner())))
                .expectNextCount(1)
                .expectComplete()
                .verify(VERIFY);
        assertThat(client.heldLocks()).isEmpty();
    }

    @Test
    void aCancelledWaitLeavesNothingHeld(LockClient a, LockClient b, RedisServer redis) {
        ReactiveLock theirs = ReactiveLockClient.of(b).getLock(name);
        ReactiveLock ours = ReactiveLockClient.of(a).getLock(name);
        ReactiveHold held = theirs.lock().block(VERIFY);

        long listening = Subscribers.count(redis, name);
        StepVerifier.create(ours.lock())
                .expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening))
                .thenCancel()
                .verify(VERIFY);
        StepVerifier.create(held.unlock()).expectComplete().verify(VERIFY);
        Await.during(Duration.ofMillis(300), () -> a.heldLocks().isEmpty(),
                "the cancelled subscription's client holds nothing");
        assertThat(exists(redis, name)).isFalse();
        StepVerifier.create(theirs.tryLock().flatMap(ReactiveHold::unlock).thenReturn(true))
                .expectNext(true).expectComplete().verify(VERIFY);
    }

    @Test
    void aCancelRacingTheGrantNeverLeavesTheLockHeld(LockClient a, LockClient b, RedisServer redis) {
        // withLock subscriptions cancelled at random moments around the release that grants them the lock: before
        // the grant, as it arrives, or while the work runs; each time the lock must end up free. Every fourth round
        // cancels once the work runs, so that the cancels inside the work are sure to be there.
        ReactiveLock theirs = ReactiveLockClient.of(b).getLock(name);
        ReactiveLock ours = ReactiveLockClient.of(a).getLock(name);
        AtomicInteger called = new AtomicInteger();
        AtomicInteger cancelledInside = new AtomicInteger();
        for (int i = 0; i < ROUNDS; i++) {
            ReactiveHold held = theirs.lock().block(VERIFY);
            Sinks.Empty<Void> running = Sinks.empty();
            var waiting = ours.withLock(hold -> {
                        called.incrementAndGet();
                        return Mono.fromRunnable(running::tryEmitEmpty).then(Mono.never())
                                .doOnCancel(cancelledInside::incrementAndGet);
                    })
                    .subscribeOn(Schedulers.parallel())
                    .subscribe();
            held.unlock().subscribeOn(Schedulers.parallel()).subscribe();
            Mono<?> cancelWhen = i % 4 == 0 ? running.asMono()
                    : Mono.delay(Duration.ofNanos(ThreadLocalRandom.current().nextLong(0, 3000) * 1000));
            cancelWhen.then(Mono.fromRunnable(waiting::dispose)).block(VERIFY);
            Await.until(SETTLE, () -> a.heldLocks().isEmpty() && !exists(redis, name),
                    () -> "lock free after a cancel; held: " + a.heldLocks());
        }
        assertThat(cancelledInside.get()).as("every work called was cancelled inside").isEqualTo(called.get());
        assertThat(cancelledInside.get()).as("cancels that landed inside the work").isGreaterThanOrEqualTo(ROUNDS / 4);
    }

    @Test
    void withLockReleasesOnCompleteErrorAndCancel(LockClient client, RedisServer redis) {
        ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);

        StepVerifier.create(lock.withLock(hold -> lock.isLocked().publishOn(Schedulers.parallel())
                        .map(locked -> locked + " " + hold.lockName())))
                .expectNext("true " + name).expectComplete().verify(VERIFY);
        assertThat(exists(redis, name)).as("released on complete").isFalse();

        StepVerifier.create(lock.withLock(hold -> Mono.<String>error(new IllegalStateException("work failed"))
                        .subscribeOn(Schedulers.parallel())))
                .expectErrorMessage("work failed").verify(VERIFY);
        assertThat(exists(redis, name)).as("released on error").isFalse();

        StepVerifier.create(lock.withLock(hold -> Flux.interval(Duration.ofMillis(10))))
                .expectNextCount(3)
                .thenCancel()
                .verify(VERIFY);
        // the client forgets the hold once the release's reply is in, just after Redis removed the key
        Await.until(SETTLE, () -> !exists(redis, name) && client.heldLocks().isEmpty(),
                "released on cancel, and forgotten by the client");

        AtomicInteger called = new AtomicInteger();
        ReactiveHold other = ReactiveLockClient.of(client).getLock(name).lock().block(VERIFY);
        StepVerifier.create(ReactiveLock.using(lock.tryLock(Duration.ofMillis(100)),
                        hold -> Mono.fromCallable(called::incrementAndGet)))
                .as("not acquired within the wait: no work, empty").expectComplete().verify(VERIFY);
        assertThat(called).hasValue(0);
        other.unlock().block(VERIFY);
    }

    @Test
    void tryLockWaitsAtMostItsWait(LockClient a, LockClient b) {
        ReactiveHold held = ReactiveLockClient.of(b).getLock(name).lock(Duration.ofSeconds(30)).block(VERIFY);
        ReactiveLock ours = ReactiveLockClient.of(a).getLock(name);
        long t0 = System.nanoTime();
        StepVerifier.create(ours.tryLock(Duration.ofMillis(200))).expectComplete().verify(VERIFY);
        assertThat(Await.millisSince(t0)).isBetween(150L, 5000L);
        StepVerifier.create(ours.tryLock()).expectComplete().verify(VERIFY);
        StepVerifier.create(ours.remainTimeToLive()).assertNext(ttl -> assertThat(ttl).isBetween(1L, 30_000L))
                .expectComplete().verify(VERIFY);
        held.unlock().block(VERIFY);
        StepVerifier.create(ours.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5)).flatMap(hold -> {
                    assertThat(hold.leaseValidFor()).isBetween(Duration.ofSeconds(3), Duration.ofSeconds(5));
                    return hold.unlock().thenReturn(hold);
                }))
                .expectNextCount(1).expectComplete().verify(VERIFY);
    }

    @Test
    void aWaiterOfAnotherClientGetsTheLockWhenItIsReleased(LockClient a, LockClient b, RedisServer redis) {
        ReactiveHold held = ReactiveLockClient.of(b).getLock(name).lock().block(VERIFY);
        ReactiveLock ours = ReactiveLockClient.of(a).getLock(name);
        long listening = Subscribers.count(redis, name);
        StepVerifier.create(ours.lock().flatMap(hold -> hold.unlock().thenReturn("acquired")))
                .expectSubscription()
                .then(() -> Subscribers.awaitMoreThan(redis, name, listening))
                .then(() -> held.unlock().subscribe())
                .expectNext("acquired")
                .expectComplete()
                .verify(VERIFY);
    }

    @Test
    void fairFencedReadWriteAndMultiLocks(LockClient a, LockClient b) {
        ReactiveLockClient ours = ReactiveLockClient.of(a);
        ReactiveLockClient theirs = ReactiveLockClient.of(b);

        ReactiveLock fenced = ours.getFencedLock(name + ":fenced");
        ReactiveHold first = fenced.lock().block(VERIFY);
        assertThat(first.fencingToken()).isPresent();
        StepVerifier.create(theirs.getFencedLock(name + ":fenced").tryLock()).expectComplete().verify(VERIFY);
        first.unlock().block(VERIFY);
        ReactiveHold second = theirs.getFencedLock(name + ":fenced").tryLock().block(VERIFY);
        assertThat(second.fencingToken().getAsLong()).isGreaterThan(first.fencingToken().getAsLong());
        second.unlock().block(VERIFY);

        ReactiveLock fair = ours.getFairLock(name + ":fair");
        StepVerifier.create(fair.withLock(hold -> theirs.getFairLock(name + ":fair").tryLock().hasElement()))
                .expectNext(false).expectComplete().verify(VERIFY);
        assertThat(a.heldLocks()).isEmpty();

        ReactiveReadWriteLock rw = ours.getReadWriteLock(name + ":rw");
        ReactiveReadWriteLock rwTheirs = theirs.getReadWriteLock(name + ":rw");
        StepVerifier.create(rw.readLock().withLock(read -> Mono.zip(
                        rwTheirs.readLock().tryLock().flatMap(h -> h.unlock().thenReturn(true)).defaultIfEmpty(false),
                        rwTheirs.writeLock().tryLock().hasElement())))
                .assertNext(both -> {
                    assertThat(both.getT1()).as("a reader beside a reader").isTrue();
                    assertThat(both.getT2()).as("a writer beside a reader").isFalse();
                })
                .expectComplete().verify(VERIFY);
        StepVerifier.create(rw.writeLock().withLock(write -> rw.readLock().tryLock().hasElement()))
                .as("another subscription's read beside this subscription's write").expectNext(false)
                .expectComplete().verify(VERIFY);

        ReactiveLock multi = ours.getMultiLock(ours.getLock(name + ":m1"), ours.getFairLock(name + ":m2"));
        StepVerifier.create(multi.withLock(hold -> Mono.zip(theirs.getLock(name + ":m1").tryLock().hasElement(),
                        theirs.getFairLock(name + ":m2").tryLock().hasElement())))
                .assertNext(both -> assertThat(List.of(both.getT1(), both.getT2())).containsOnly(false))
                .expectComplete().verify(VERIFY);
        StepVerifier.create(multi.inspect()).expectError(UnsupportedOperationException.class).verify(VERIFY);
        assertThat(a.heldLocks()).isEmpty();
        assertThat(b.heldLocks()).isEmpty();
    }

    @Test
    void badArgumentsAreThrownWhenTheMonoIsMadeNamingTheLock(LockClient client) {
        ReactiveLock lock = ReactiveLockClient.of(client).getLock(name);
        assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name).hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.lock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name).hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> lock.lock(DistributedLock.MAX_LEASE.plusDays(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name);
        assertThatThrownBy(() -> lock.tryLock(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.withLock(null)).isInstanceOf(NullPointerException.class);
        assertThat(client.heldLocks()).isEmpty();
    }

    /** Whether {@code key} exists, read by the server (the test's view of Redis, not a client's). */
    static boolean exists(RedisServer redis, String key) {
        return !"0".equals(String.valueOf(redis.command(SETTLE, "EXISTS", key)));
    }
}
