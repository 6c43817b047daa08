package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockException;
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
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reactive API under faults, public API only, against a real Redis under BlockHound:
 * <ul>
 *   <li><b>an outage</b> (the server paused with SIGSTOP) while {@code withLock}'s work runs and while
 *       subscriptions wait: the work and the untimed waits ride it out (the waits acquire once Redis is back), each
 *       timed try ends by its wait, empty within the first command timeout of the silence (a slow answer) and with a
 *       {@link LockException} once the silence lasted a command timeout (Redis unavailable), the rule of
 *       {@link DistributedLock}'s timed waits; a late grant is given back;</li>
 *   <li><b>a restart without persistence</b> while works hold a lock and a permit: the holds are gone, so each work
 *       is cancelled and its Flux fails with {@link LockLostException} (the reactive lost-hold rule);</li>
 *   <li><b>a fixed lease that runs out during the work</b>: the same rule;</li>
 *   <li><b>cancel storms</b> of every shape ({@link CancelShape}, and disposes that cross the acquisition) over
 *       {@code withPermit} and {@code withPermits}: never more works inside than the permits allow (a work counts
 *       inside until its cancel clean-up has ended), and every permit back at quiescence.</li>
 * </ul>
 * Nothing is held by anyone afterwards, in every test.
 */
@ExtendWith({NoBlocking.class, RedisExtension.class})
@ClientSettings(commandTimeoutMillis = ReactiveFaultsIT.COMMAND_TIMEOUT_MS, watchdogTimeoutMillis = 9_000)
@Timeout(value = 120, unit = SECONDS)
class ReactiveFaultsIT {
    static final long COMMAND_TIMEOUT_MS = 1_000;
    private static final Duration SETTLE = Duration.ofSeconds(10);
    /** A try's wait, short of a command timeout. */
    private static final Duration SHORT_WAIT = Duration.ofMillis(300);
    /** Scheduling slack on a loaded two-core machine. */
    private static final long SLACK_MS = 700;
    /** A fixed lease that the works outlast. */
    private static final Duration FIXED_LEASE = Duration.ofMillis(600);
    /** How late a fixed lease's end may cancel the work after another owner got in (timer and executor lateness). */
    private static final long LEASE_END_LATE_MS = 250;
    private static final int WAITERS = 4;
    private static final int TRIES = 3;

    /** Storm threads: more than the works that fit inside at once, so that a give-back always has a taker. */
    private static final int STORM_THREADS = 6;
    private static final int STORM_ROUNDS = 12;
    private static final int DISPOSERS = 2;
    private static final int DISPOSES = 60;

    private String name;

    @BeforeEach
    void name(TestInfo info) {
        name = "faults:" + info.getTestMethod().orElseThrow().getName();
    }

    /** How one timed try ended: {@code "empty"}, {@code "a hold"} (given back at once) or {@code "error"}. */
    private record TryOutcome(String end, long tookMs, Duration waited, Throwable error) {
        @Override
        public String toString() {
            return end + " after " + tookMs + " ms (wait " + waited.toMillis() + " ms)"
                    + (error == null ? "" : ": " + error);
        }
    }

    @Test
    void aPauseIsRiddenOutByTheWorkAndTheUntimedWaitsWhileEachTimedTryEndsByItsWait(LockClient a, LockClient b,
                                                                                     RedisServer redis)
            throws Exception {
        ReactiveLockClient reactive = ReactiveLockClient.of(a);
        DistributedLock theirs = b.getLock(name);
        theirs.lock(); // busy, so that the untimed waits wait through the pause
        Sinks.Empty<Void> finish = Sinks.empty();
        AtomicBoolean workCancelled = new AtomicBoolean();
        Sinks.One<Boolean> entered = Sinks.one();
        CompletableFuture<Void> work = reactive.getLock(name + ":work")
                .withLock(hold -> finish.asMono().doOnSubscribe(s -> entered.tryEmitValue(true))
                        .doOnCancel(() -> workCancelled.set(true)))
                .subscribeOn(Schedulers.parallel()).then().toFuture();
        entered.asMono().block(SETTLE);
        long listening = Subscribers.count(redis, name);
        List<CompletableFuture<Long>> untimed = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            untimed.add(reactive.getLock(name).lock().flatMap(hold -> hold.unlock().thenReturn(hold.owner().id()))
                    .subscribeOn(Schedulers.parallel()).toFuture());
        }
        Subscribers.awaitMoreThan(redis, name, listening);

        ReactiveLock free = reactive.getLock(name + ":free");
        List<TryOutcome> slow;
        List<TryOutcome> unavailable;
        List<TryOutcome> afterSilence;
        redis.pause();
        try {
            slow = ended(tries(free, SHORT_WAIT));
            unavailable = ended(tries(free, Duration.ofMillis(COMMAND_TIMEOUT_MS + 500)));
            afterSilence = ended(tries(free, SHORT_WAIT));
            assertThat(untimed).as("the untimed waits, at the end of the pause").noneMatch(CompletableFuture::isDone);
            assertThat(work).as("the work, at the end of the pause").isNotDone();
        } finally {
            redis.resume();
        }
        theirs.unlock();

        List<Long> owners = new ArrayList<>();
        for (CompletableFuture<Long> wait : untimed) {
            owners.add(wait.get(SETTLE.toSeconds(), SECONDS));
        }
        assertThat(owners).as("each untimed wait acquired, once Redis was back, for an owner of its own")
                .doesNotHaveDuplicates().hasSize(WAITERS);
        finish.tryEmitEmpty();
        work.get(SETTLE.toSeconds(), SECONDS);
        assertThat(workCancelled).as("the work rode the pause out").isFalse();

        assertThat(slow).as("tries within the first command timeout of the silence: a slow answer is a no")
                .allSatisfy(outcome -> assertThat(outcome.end()).as(outcome.toString()).isEqualTo("empty"));
        assertThat(unavailable).as("tries that outlast a command timeout of silence: Redis is unavailable")
                .allSatisfy(outcome -> assertThat(outcome.error()).as(outcome.toString())
                        .isInstanceOf(LockException.class));
        assertThat(afterSilence).as("short tries once the silence lasted a command timeout")
                .allSatisfy(outcome -> assertThat(outcome.error()).as(outcome.toString())
                        .isInstanceOf(LockException.class));
        for (List<TryOutcome> wave : List.of(slow, unavailable, afterSilence)) {
            assertThat(wave).as("each try ends by its wait (plus at most one command timeout)")
                    .allSatisfy(outcome -> assertThat(outcome.tookMs()).as(outcome.toString())
                            .isLessThan(outcome.waited().toMillis() + COMMAND_TIMEOUT_MS + SLACK_MS));
        }
        nothingHeld(redis, a, b, name, name + ":free", name + ":work");
    }

    /**
     * Redis stops and comes back empty (no persistence) while one work holds a lock and another a permit under the
     * hold scopes, and while untimed waits wait for a lock another client held: each work is cancelled and fails
     * with {@link LockLostException} naming what it held; the waits acquire on the new run; the timed tries made while
     * the server was down end by their wait (empty, or a {@link LockException}: the connection is down), holding
     * nothing.
     */
    @Test
    void aRestartWithoutPersistenceCancelsTheWorksAndFailsThemWithLockLostException(
            @ClientSettings(watchdogTimeoutMillis = 4_500) LockClient a,
            @ClientSettings(watchdogTimeoutMillis = 4_500) LockClient b, RedisServer redis) throws Exception {
        ReactiveLockClient reactive = ReactiveLockClient.of(a);
        DistributedLock theirs = b.getLock(name);
        theirs.lock();
        ReactiveLeasedSemaphore semaphore = reactive.getLeasedSemaphore(name + ":sem");
        assertThat(semaphore.trySetPermits(1).block(SETTLE)).isTrue();
        LostWork lockWork = LostWork.start(work -> reactive.getLock(name + ":work").withLock(work));
        LostWork permitWork = LostWork.start(semaphore::withPermit);
        long listening = Subscribers.count(redis, name);
        List<CompletableFuture<Long>> untimed = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            untimed.add(reactive.getLock(name).lock().flatMap(hold -> hold.unlock().thenReturn(hold.owner().id()))
                    .subscribeOn(Schedulers.parallel()).toFuture());
        }
        Subscribers.awaitMoreThan(redis, name, listening);

        redis.stop();
        List<TryOutcome> down = ended(tries(reactive.getLock(name + ":free"), SHORT_WAIT));
        redis.restart();

        lockWork.assertLost(name + ":work");
        permitWork.assertLost(name + ":sem");
        List<Long> owners = new ArrayList<>();
        for (CompletableFuture<Long> wait : untimed) {
            owners.add(wait.get(SETTLE.toSeconds(), SECONDS));
        }
        assertThat(owners).as("the untimed waits acquired on the new run").doesNotHaveDuplicates().hasSize(WAITERS);
        assertThat(down).as("tries while Redis was down").allSatisfy(outcome -> {
            assertThat(outcome.end()).as(outcome.toString()).isIn("empty", "error");
            if (outcome.error() != null) {
                assertThat(outcome.error()).as(outcome.toString()).isInstanceOf(LockException.class);
            }
            assertThat(outcome.tookMs()).as(outcome.toString())
                    .isLessThan(SHORT_WAIT.toMillis() + COMMAND_TIMEOUT_MS + SLACK_MS);
        });
        nothingHeld(redis, a, b, name, name + ":free", name + ":work", name + ":sem", "{" + name + ":sem}:timeout");
    }

    /**
     * A fixed lease shorter than the work, for a lock ({@code withLock(lease, …)}) and a permit
     * ({@code ReactiveLeasedSemaphore.using} over {@code tryAcquire(wait, lease)}): the lease runs out, so the work is
     * cancelled and the Flux fails with {@link LockLostException}; another client waiting for the lock (or the
     * permit) gets in once Redis let the hold go, and nothing is held afterwards.
     */
    @Test
    void aFixedLeaseThatRunsOutDuringTheWorkCancelsItAndFailsWithLockLostException(LockClient a, LockClient b,
                                                                                  RedisServer redis)
            throws Exception {
        long[] cancelledBeforeOtherGotIn = fixedLeaseRunsOut(a, b, redis);
        System.out.printf("fixed lease of %d ms: the work cancelled %.1f ms (lock), %.1f ms (permit) before the "
                        + "other client got in%n", FIXED_LEASE.toMillis(), cancelledBeforeOtherGotIn[0] / 1e6,
                cancelledBeforeOtherGotIn[1] / 1e6);
    }

    /**
     * {@code withLock(lease, work)} promises more: the client counts a fixed lease out a little before Redis does (1%
     * and 2 ms), so the work is cancelled when its lease ends, about when another owner can get in: before it while
     * the client's timer and executor keep up within that margin, at most {@value #LEASE_END_LATE_MS} ms after it
     * here (a loaded host: 63 ms once at load 7). Before the fix the client found a fixed lease run out at its next
     * renewal round only (every third of the watchdog timeout: here 3 s), and another client's waiting
     * {@code tryLock} got in 2.4 s before the work was cancelled (the permit the same). (The name is kept: JUnit's
     * method order follows the names, and the class's first test must not be the first to load dlock's classes on a
     * checked thread, where BlockHound refuses the class loader's jar reads.)
     */
    @Test
    void aFixedLeaseThatRunsOutCancelsTheWorkBeforeAnotherOwnerGetsIn(LockClient a, LockClient b, RedisServer redis)
            throws Exception {
        long[] cancelledBeforeOtherGotIn = fixedLeaseRunsOut(a, b, redis);
        assertThat(-cancelledBeforeOtherGotIn[0] / 1e6).as("ms from another owner's entry until the lock's work's "
                + "cancel").isLessThanOrEqualTo(LEASE_END_LATE_MS);
        assertThat(-cancelledBeforeOtherGotIn[1] / 1e6).as("ms from another client's permit until the permit's "
                + "work's cancel").isLessThanOrEqualTo(LEASE_END_LATE_MS);
    }

    /**
     * A lock and a permit held with {@link #FIXED_LEASE} under works that outlast it, while another client waits for
     * each: checks the lost-hold rule and that nothing is held afterwards.
     *
     * @return for the lock and the permit, the ns from the work's cancel until the other client got in
     */
    private long[] fixedLeaseRunsOut(LockClient a, LockClient b, RedisServer redis) throws Exception {
        ReactiveLockClient reactive = ReactiveLockClient.of(a);
        ReactiveLeasedSemaphore semaphore = reactive.getLeasedSemaphore(name + ":sem");
        assertThat(semaphore.trySetPermits(1).block(SETTLE)).isTrue();
        LostWork lockWork = LostWork.start(work -> reactive.getLock(name).withLock(FIXED_LEASE, work));
        LostWork permitWork = LostWork.start(work -> ReactiveLeasedSemaphore.using(
                semaphore.tryAcquire(SETTLE, FIXED_LEASE), work));
        ExecutorService other = Executors.newFixedThreadPool(2);
        long[] cancelledBeforeOtherGotIn = new long[2];
        try {
            Future<Long> theirLock = other.submit(() -> {
                DistributedLock lock = b.getLock(name);
                assertThat(lock.tryLock(SETTLE.toMillis(), TimeUnit.MILLISECONDS)).as("the other client got the lock")
                        .isTrue();
                long gotInAt = System.nanoTime();
                lock.unlock();
                return gotInAt;
            });
            Future<Long> theirPermit = other.submit(() -> {
                Permit permit = b.getLeasedSemaphore(name + ":sem").tryAcquire(SETTLE)
                        .orElseThrow(() -> new AssertionError("the other client got no permit"));
                long gotInAt = System.nanoTime();
                permit.release();
                return gotInAt;
            });
            lockWork.assertLost(name);
            permitWork.assertLost(name + ":sem");
            cancelledBeforeOtherGotIn[0] = theirLock.get(SETTLE.toSeconds(), SECONDS) - lockWork.cancelledAt();
            cancelledBeforeOtherGotIn[1] = theirPermit.get(SETTLE.toSeconds(), SECONDS) - permitWork.cancelledAt();
        } finally {
            other.shutdownNow();
        }
        nothingHeld(redis, a, b, name, "{" + name + ":sem}:timeout");
        assertThat(semaphore.availablePermits().block(SETTLE)).isEqualTo(1);
        return cancelledBeforeOtherGotIn;
    }

    @Test
    void aCancelStormOverWithPermitConservesThePermits(LockClient a, LockClient b, RedisServer redis) {
        int permits = 3;
        ReactiveLeasedSemaphore semaphore = ReactiveLockClient.of(a).getLeasedSemaphore(name);
        assertThat(semaphore.trySetPermits(permits).block(SETTLE)).isTrue();
        var theirs = b.getLeasedSemaphore(name);
        storm(work -> semaphore.withPermit(permit -> work), permits,
                () -> theirs.availablePermits() == permits && !ReactiveLockIT.exists(redis, "{" + name + "}:timeout"),
                () -> "available " + theirs.availablePermits() + " of " + permits + ", permit table entries "
                        + redis.command(SETTLE, "ZCARD", "{" + name + "}:timeout"));
    }

    @Test
    void aCancelStormOverWithPermitsConservesThePermits(LockClient a, LockClient b) {
        int permits = 4;
        ReactiveSemaphore semaphore = ReactiveLockClient.of(a).getSemaphore(name);
        assertThat(semaphore.trySetPermits(permits).block(SETTLE)).isTrue();
        var theirs = b.getSemaphore(name);
        storm(work -> semaphore.withPermits(2, () -> work), permits / 2, () -> theirs.availablePermits() == permits,
                () -> "available " + theirs.availablePermits() + " of " + permits);
    }

    /**
     * {@value #STORM_THREADS} threads of {@value #STORM_ROUNDS} rounds, each of the next {@link CancelShape} in turn
     * (each cancel lands inside the work, whose clean-up lasts 30 ms), beside {@value #DISPOSERS} threads that dispose
     * a subscription 0-3 ms after subscribing (across its acquisition, the grant or the work's start). A work counts
     * inside from its subscription until its cancel clean-up has ended.
     *
     * @param atMostInside how many works fit inside at once
     * @param conserved    whether every permit is back
     */
    private static void storm(Function<Flux<Long>, Flux<Long>> scoped, int atMostInside, BooleanSupplier conserved,
                              Supplier<String> state) {
        Occupancy section = new Occupancy(atMostInside);
        Function<Flux<Long>, Flux<Long>> counted = work -> scoped.apply(section.counted(work, "work"));
        CleanUpProbe cleanUps = new CleanUpProbe(() -> false); // only the clean-up's 30 ms: the inside count checks
        ExecutorService threads = Executors.newFixedThreadPool(STORM_THREADS + DISPOSERS);
        List<Future<?>> all = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (int t = 0; t < STORM_THREADS; t++) {
                int first = t;
                all.add(threads.submit(() -> {
                    for (int r = 0; r < STORM_ROUNDS; r++) {
                        CancelShape.values()[(first + r) % CancelShape.values().length].round(counted, cleanUps);
                    }
                }));
            }
            for (int t = 0; t < DISPOSERS; t++) {
                all.add(threads.submit(() -> {
                    for (int r = 0; r < DISPOSES; r++) {
                        Disposable subscription = counted.apply(Flux.never()).subscribeOn(Schedulers.parallel())
                                .subscribe(null, error -> { });
                        CleanUpProbe.spin(ThreadLocalRandom.current().nextLong(3_000_000));
                        subscription.dispose();
                    }
                }));
            }
            for (Future<?> done : all) {
                assertThat(done).succeedsWithin(Duration.ofSeconds(60));
            }
        } finally {
            threads.shutdownNow();
        }
        Await.until(SETTLE, conserved::getAsBoolean, () -> "every permit back at quiescence: " + state.get());
        Await.until(SETTLE, () -> section.inside() == 0, () -> section.inside() + " works still inside");
        System.out.printf("cancel storm: %d entries, at most %d inside (of %d), %d clean-ups, %d ms%n",
                section.entries(), section.most(), atMostInside, cleanUps.cleanUps(), Await.millisSince(start));
        assertThat(cleanUps.cleanUps()).as("a cancel landed inside the work in every round")
                .isEqualTo(STORM_THREADS * STORM_ROUNDS);
        assertThat(section.most()).as("works inside at once (a work leaves when its cancel clean-up has ended); "
                        + "the first time more were inside: " + section.firstExcess())
                .isLessThanOrEqualTo(atMostInside);
    }

    /**
     * A work that runs until cancelled, under a hold scope, subscribed on a checked thread: records when the work was
     * cancelled and how its Flux ended.
     */
    private static final class LostWork {
        private final AtomicLong cancelledAt = new AtomicLong();
        private final CompletableFuture<Throwable> ended = new CompletableFuture<>();

        /** @param scoped the hold scope over a work given the grant; blocks until the work runs */
        static LostWork start(Function<Function<Object, Flux<String>>, Flux<String>> scoped) {
            LostWork lost = new LostWork();
            Sinks.One<Boolean> entered = Sinks.one();
            scoped.apply(grant -> Flux.<String>never().doOnSubscribe(s -> entered.tryEmitValue(true))
                            .doOnCancel(() -> lost.cancelledAt.set(System.nanoTime())))
                    .subscribeOn(Schedulers.parallel())
                    .subscribe(null, lost.ended::complete,
                            () -> lost.ended.completeExceptionally(new AssertionError("completed")));
            entered.asMono().block(SETTLE);
            return lost;
        }

        /** @return when the work was cancelled ({@link System#nanoTime()}), or 0 */
        long cancelledAt() {
            return cancelledAt.get();
        }

        /** Waits for the Flux's end: a {@link LockLostException} naming {@code lockName}, after the work's cancel. */
        void assertLost(String lockName) throws Exception {
            Throwable error = ended.get(SETTLE.toSeconds(), SECONDS);
            long failedAt = System.nanoTime();
            assertThat(error).isInstanceOf(LockLostException.class).hasMessageContaining(lockName);
            assertThat(((LockLostException) error).lockName()).isEqualTo(lockName);
            assertThat(cancelledAt.get()).as("the work was cancelled before the error").isNotZero()
                    .isLessThanOrEqualTo(failedAt);
        }
    }

    /** {@value #TRIES} timed tries of {@code lock}, subscribed at once on checked threads. */
    private static List<CompletableFuture<TryOutcome>> tries(ReactiveLock lock, Duration wait) {
        List<CompletableFuture<TryOutcome>> tries = new ArrayList<>();
        for (int i = 0; i < TRIES; i++) {
            long start = System.nanoTime();
            tries.add(lock.tryLock(wait)
                    .map(hold -> {
                        hold.unlock().subscribe(null, error -> { });
                        return "a hold";
                    })
                    .defaultIfEmpty("empty")
                    .map(end -> new TryOutcome(end, Await.millisSince(start), wait, null))
                    .onErrorResume(error -> Mono.just(new TryOutcome("error", Await.millisSince(start), wait, error)))
                    .subscribeOn(Schedulers.parallel())
                    .toFuture());
        }
        return tries;
    }

    private static List<TryOutcome> ended(List<CompletableFuture<TryOutcome>> tries) throws Exception {
        List<TryOutcome> outcomes = new ArrayList<>();
        for (CompletableFuture<TryOutcome> attempt : tries) {
            outcomes.add(attempt.get(SETTLE.toSeconds(), SECONDS));
        }
        return outcomes;
    }

    /** Waits until none of {@code keys} exists and neither client knows of a hold. */
    private static void nothingHeld(RedisServer redis, LockClient a, LockClient b, String... keys) {
        Await.until(SETTLE, () -> a.heldLocks().isEmpty() && b.heldLocks().isEmpty()
                        && List.of(keys).stream().noneMatch(key -> ReactiveLockIT.exists(redis, key)),
                () -> "nothing held: a " + a.heldLocks() + ", b " + b.heldLocks() + ", keys "
                        + List.of(keys).stream().filter(key -> ReactiveLockIT.exists(redis, key)).toList());
    }
}
