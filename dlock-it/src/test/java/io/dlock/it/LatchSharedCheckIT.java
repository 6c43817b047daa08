package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.it.support.PubSubHoldingProxy;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Awaiters of one client on one latch share their checks of its state (one group per client and latch): all are
 * released by one count-down, none misses a count-down that lands while it joins, each keeps its own timeout and
 * interrupt, and the checks do not grow with their number. Clients run with a 30 s watchdog, so the bounded
 * re-check is 10 s: a wake-up within {@link #WAKE_UP_MS} came from a message (or a check), not from the timer.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 120, unit = SECONDS)
class LatchSharedCheckIT {
    static final long WAKE_UP_MS = 2000;

    String name;
    RawRedis raw;
    Workers workers;

    @BeforeEach
    void setUp(RedisServer server, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(server.uri());
        workers = new Workers("shared-latch");
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
        } finally {
            raw.close();
        }
    }

    @Test
    void manyThreadsOfOneClientAreAllReleasedByACountDownOfAnother(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        assertThat(b.getCountDownLatch(name).trySetCount(1)).isTrue();
        List<Future<Long>> awaiters = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            DistributedCountDownLatch latch = a.getCountDownLatch(name); // instances of one name share the group
            awaiters.add(workers.submit(() -> {
                latch.await();
                return System.nanoTime();
            }));
        }
        awaitQuiet(a);
        assertThat(awaiters).noneMatch(Future::isDone);
        assertThat(((RedisLockClient) a).diagnostics().subscriptions()).as("one channel membership").isEqualTo(1);
        assertThat(raw.subscribers(channel(name))).isEqualTo(1);

        long before = System.nanoTime();
        b.getCountDownLatch(name).countDown();
        for (Future<Long> awaiter : awaiters) {
            long releasedAt = Workers.get(awaiter, Duration.ofMillis(WAKE_UP_MS));
            assertThat(releasedAt).isGreaterThan(before);
        }
        Await.until(Duration.ofSeconds(5), () -> ((RedisLockClient) a).diagnostics().subscriptions() == 0,
                "the group dropped its subscription");
    }

    /**
     * A count-down from another client lands while awaiters of one client join, in every order: into a new group
     * (its first check on its way), and into a group already subscribed and asleep. A joiner that rode a check sent
     * before it joined, or slept on an answer from before its subscription, would wait for the re-check (10 s).
     */
    @Test
    void aCountDownLandingWhileAwaitersJoinIsNeverMissed(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        int joiners = 6;
        java.util.concurrent.ExecutorService starters = java.util.concurrent.Executors.newFixedThreadPool(joiners + 1);
        try {
            for (int round = 0; round < 120; round++) {
                String roundName = name + ":" + round;
                assertThat(b.getCountDownLatch(roundName).trySetCount(1)).isTrue();
                DistributedCountDownLatch latch = a.getCountDownLatch(roundName);
                CompletableFuture<Void> early = null;
                if (round % 2 == 1) {
                    early = latch.awaitAsync(); // the group is subscribed and asleep when the others join
                    String subscribedTo = channel(roundName);
                    Await.until(Duration.ofSeconds(5), () -> raw.subscribers(subscribedTo) == 1, "subscribed");
                }
                CyclicBarrier go = new CyclicBarrier(joiners + 1);
                List<Future<Boolean>> awaits = new ArrayList<>();
                for (int i = 0; i < joiners; i++) {
                    boolean timed = i % 2 == 0;
                    awaits.add(starters.submit(() -> {
                        go.await();
                        if (timed) {
                            return latch.await(30, SECONDS);
                        }
                        latch.await();
                        return true;
                    }));
                }
                int delayMicros = (round * 37) % 400; // the count-down lands at varying points of the joins
                starters.submit(() -> {
                    go.await();
                    if (delayMicros > 0) {
                        TimeUnit.MICROSECONDS.sleep(delayMicros);
                    }
                    b.getCountDownLatch(roundName).countDown();
                    return null;
                }).get(10, SECONDS);
                long start = System.nanoTime();
                for (Future<Boolean> await : awaits) {
                    assertThat(await.get(10, SECONDS)).as("round %d", round).isTrue();
                }
                if (early != null) {
                    early.get(10, SECONDS);
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("round %d: every awaiter woke", round)
                        .isLessThan(Duration.ofMillis(WAKE_UP_MS));
            }
        } finally {
            starters.shutdownNow();
        }
    }

    /**
     * A count-down racing a join into a subscribed, sleeping group is published once: its "0" may wake only the sleep
     * that the join made stale, before the joiner's check reads the latch open; that "0" still counts as the opening's
     * message, so the group announces no second opening ({@code latch_opened}) for it.
     */
    @Test
    void aCountDownRacingAJoinIsPublishedOnce(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        for (int round = 0; round < 60; round++) {
            String roundName = name + ":" + round;
            assertThat(b.getCountDownLatch(roundName).trySetCount(1)).isTrue();
            DistributedCountDownLatch latch = a.getCountDownLatch(roundName);
            try (RawRedis.Subscription zeros = raw.subscribe(channel(roundName))) {
                CompletableFuture<Void> early = latch.awaitAsync();
                String subscribedTo = channel(roundName);
                Await.until(Duration.ofSeconds(5), () -> raw.subscribers(subscribedTo) == 2, "subscribed");
                Thread.sleep(20); // the group's check after subscribing answered: it sleeps
                int delayMicros = (round * 53) % 600;
                Future<Void> countDown = workers.submit(() -> {
                    if (delayMicros > 0) {
                        TimeUnit.MICROSECONDS.sleep(delayMicros);
                    }
                    b.getCountDownLatch(roundName).countDown();
                    return null;
                });
                CompletableFuture<Void> joiner = latch.awaitAsync();
                Workers.get(countDown, Duration.ofSeconds(10));
                early.get(WAKE_UP_MS, MILLISECONDS);
                joiner.get(WAKE_UP_MS, MILLISECONDS);
                // the opening's "0" (it may reach this subscriber after the awaiters were released by a check), then
                // 50 ms in which a second one, announced by the group, would come: none may
                List<String> published = new ArrayList<>();
                String first = zeros.messages().poll(5, SECONDS);
                if (first != null) {
                    published.add(first);
                }
                Await.during(Duration.ofMillis(50), () -> zeros.messages().isEmpty(),
                        () -> "a second message on the channel: " + zeros.messages());
                assertThat(published).as("round %d: what the latch's channel heard", round).containsExactly("0");
            }
        }
    }

    /**
     * A check of the group already on its way when an awaiter joins may have run before a {@code trySetCount} that
     * returned before that await began: its answer "open" must not release the joiner. Here the count is set by
     * another client while the first awaiter's check of the open latch may still be on its way.
     */
    @Test
    void aJoinerNeverRidesACheckSentBeforeItJoined(LockClient a, LockClient b) throws Exception {
        for (int round = 0; round < 300; round++) {
            String roundName = name + ":" + round;
            DistributedCountDownLatch ours = a.getCountDownLatch(roundName);
            // the latch is open: this check answers so, unless Redis runs it after the trySetCount below
            CompletableFuture<Void> first = ours.awaitAsync();
            assertThat(b.getCountDownLatch(roundName).trySetCount(1)).isTrue();
            CompletableFuture<Boolean> second = ours.awaitAsync(30, SECONDS);
            Thread.sleep(round % 10 == 0 ? 20 : 2);
            assertThat(second).as("round %d: released although the count was set before it began", round)
                    .isNotDone();
            b.getCountDownLatch(roundName).countDown();
            first.get(WAKE_UP_MS, MILLISECONDS);
            assertThat(second.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
        }
    }

    @Test
    void aTimedAwaiterTimesOutAloneWhileTheOthersKeepWaiting(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1);
        List<CompletableFuture<Void>> untimed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            untimed.add(latch.awaitAsync());
        }
        CompletableFuture<Boolean> later = latch.awaitAsync(20, SECONDS);
        long start = System.nanoTime();
        Future<Boolean> timed = workers.submit(() -> latch.await(400, MILLISECONDS));
        assertThat(Workers.get(timed, Duration.ofSeconds(5))).isFalse();
        long waited = (System.nanoTime() - start) / 1_000_000;
        assertThat(waited).as("the timed awaiter's own deadline, not the 10 s re-check").isBetween(380L, 1900L);
        Thread.sleep(200);
        assertThat(untimed).noneMatch(CompletableFuture::isDone);
        assertThat(later).isNotDone();
        assertThat(raw.subscribers(channel(name))).as("the others' subscription stays").isEqualTo(1);

        b.getCountDownLatch(name).countDown();
        for (CompletableFuture<Void> await : untimed) {
            await.get(WAKE_UP_MS, MILLISECONDS);
        }
        assertThat(later.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
        assertThat(latch.await(5, SECONDS)).isTrue();
    }

    @Test
    void anInterruptedAwaiterLeavesWithoutDisturbingTheOthers(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1);
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<String>> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    latch.await();
                    outcome.complete("opened");
                } catch (InterruptedException e) {
                    outcome.complete("interrupted");
                } catch (Throwable e) {
                    outcome.completeExceptionally(e);
                }
            }, "latch-awaiter-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
            outcomes.add(outcome);
        }
        awaitQuiet(a);
        long checksBefore = raw.commandCalls("pttl");
        threads.get(2).interrupt();
        assertThat(outcomes.get(2).get(5, SECONDS)).isEqualTo("interrupted");
        Thread.sleep(300);
        assertThat(raw.commandCalls("pttl") - checksBefore).as("leaving costs no check").isZero();
        for (int i = 0; i < 5; i++) {
            if (i != 2) {
                assertThat(outcomes.get(i)).as("awaiter %d", i).isNotDone();
            }
        }
        assertThat(raw.subscribers(channel(name))).isEqualTo(1);

        b.getCountDownLatch(name).countDown();
        for (int i = 0; i < 5; i++) {
            if (i != 2) {
                assertThat(outcomes.get(i).get(WAKE_UP_MS, MILLISECONDS)).isEqualTo("opened");
            }
        }
    }

    /**
     * The checks (each a GET and a PTTL, no script) and script calls of K awaiters of one client: joining all at once
     * costs a few checks whatever K and no script, and a count-down that opens the latch costs itself (the one
     * script) and no check, for 1 awaiter as for 64: its "0" reaches the group after the answer to a flush point sent
     * after they all joined (the group's {@code SUBSCRIBE}, or one sent beside a check), so it releases them as it is
     * (a standalone server: the pub/sub connection and the scripts share it).
     */
    @Test
    void checksDoNotGrowWithTheNumberOfAwaiters(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        b.getCountDownLatch(name + ":warm-up").countDown(); // scripts loaded: no NOSCRIPT retry in the counts
        a.getCountDownLatch(name + ":warm-up").await(0, MILLISECONDS);
        long[] one = awaitersCost(a, b, name + ":1", 1);
        long[] many = awaitersCost(a, b, name + ":64", 64);
        assertThat(one[0]).as("joining, 1 awaiter: check, subscribe, check").isEqualTo(2);
        assertThat(many[0]).as("joining, 64 awaiters at once").isLessThanOrEqualTo(6);
        assertThat(one[1] + many[1]).as("joining sends no script").isZero();
        assertThat(one[2]).as("after the count-down: no check, its \"0\" releases the awaiter").isZero();
        assertThat(many[2]).as("after the count-down: no check, for 64").isZero();
        assertThat(one[3]).as("the count-down alone: nothing announced").isEqualTo(1);
        assertThat(many[3]).as("the count-down alone, for 64").isEqualTo(1);
    }

    /**
     * An opening closed again at once (a count-down to zero and a new count in one script, so that every check after
     * it reads the latch closed) still releases the awaiters that waited through it: its "0" reached their group after
     * the answer to a flush point sent after they joined, so it was published while they waited. A group that checked
     * again on the "0" would read the new count and keep them waiting (Redisson's awaiters do). An awaiter that joins
     * after the opening waits for the new count.
     */
    @Test
    void anOpeningClosedAgainAtOnceReleasesTheAwaitersThatWaitedThroughIt(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(b.getCountDownLatch(name).trySetCount(1)).isTrue();
        List<CompletableFuture<Void>> through = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            through.add(latch.awaitAsync());
        }
        CompletableFuture<Boolean> timed = latch.awaitAsync(30, SECONDS);
        awaitQuiet(a);
        assertThat(through).noneMatch(CompletableFuture::isDone);

        raw.sync().eval("redis.call('del', KEYS[1]); redis.call('publish', ARGV[1], '0'); "
                + "redis.call('set', KEYS[1], '1'); return 1", io.lettuce.core.ScriptOutputType.INTEGER,
                new String[]{name}, channel(name));
        for (CompletableFuture<Void> await : through) {
            await.get(WAKE_UP_MS, MILLISECONDS);
        }
        assertThat(timed.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
        assertThat(latch.getCount()).as("closed again").isEqualTo(1);

        CompletableFuture<Boolean> after = latch.awaitAsync(30, SECONDS);
        Thread.sleep(300);
        assertThat(after).as("joined after the opening: waits for the new count").isNotDone();
        b.getCountDownLatch(name).countDown();
        assertThat(after.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
    }

    /**
     * A "0" releases only the awaiters that a flush point sent after their join witnessed. Here the "0" of an opening
     * closed again at once reaches the group late (a proxy holds Redis's bytes to the pub/sub connection), after a
     * second awaiter joined: it releases the first, which waited through the opening, and not the second, which
     * joined after it (the flush point sent for the second is answered after the "0"). Released on any "0" heard after
     * any answered flush point, the second would return {@code true} for an opening that ended before it began.
     */
    @Test
    void aZeroPublishedBeforeAnAwaiterJoinedDoesNotReleaseIt(RedisServer server, LockClient b) throws Exception {
        try (PubSubHoldingProxy proxy = PubSubHoldingProxy.start(server.port());
             LockClient a = LockClient.create(LockClientConfig.builder().redisUri(proxy.uri())
                     .watchdogTimeout(Duration.ofSeconds(30)).build())) {
            DistributedCountDownLatch latch = a.getCountDownLatch(name);
            assertThat(b.getCountDownLatch(name).trySetCount(1)).isTrue();
            CompletableFuture<Boolean> through = latch.awaitAsync(30, SECONDS);
            awaitQuiet(a);

            proxy.hold();
            raw.sync().eval("redis.call('del', KEYS[1]); redis.call('publish', ARGV[1], '0'); "
                    + "redis.call('set', KEYS[1], '1'); return 1", io.lettuce.core.ScriptOutputType.INTEGER,
                    new String[]{name}, channel(name));
            long checks = raw.commandCalls("pttl");
            CompletableFuture<Boolean> joinedAfter = latch.awaitAsync(30, SECONDS);
            Await.until(Duration.ofSeconds(5), () -> raw.commandCalls("pttl") > checks, "the joiner's check");
            Thread.sleep(100); // its answer (closed) is in; the "0" and the flush point's answer are still held
            assertThat(through).isNotDone();
            proxy.release();

            assertThat(through.get(WAKE_UP_MS, MILLISECONDS)).as("waited through the opening").isTrue();
            Thread.sleep(300);
            assertThat(joinedAfter).as("joined after the opening's \"0\" was published").isNotDone();
            b.getCountDownLatch(name).countDown();
            assertThat(joinedAfter.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
        }
    }

    /**
     * A client that set the count itself knows the latch closed: its awaiters subscribe before their first check,
     * which then settles them (one check instead of two); when that knowledge is stale (another client opened the
     * latch since), the await still returns at once and leaves no subscription behind.
     */
    @Test
    void aClientThatSetTheCountSubscribesBeforeItsFirstCheck(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        b.getCountDownLatch(name + ":warm-up").countDown(); // scripts loaded: no NOSCRIPT retry in the counts
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(1)).isTrue();
        long checks = raw.commandCalls("pttl");
        CompletableFuture<Void> await = latch.awaitAsync();
        awaitQuiet(a);
        assertThat(raw.commandCalls("pttl") - checks).as("joining: subscribe, then one check").isEqualTo(1);
        assertThat(await).isNotDone();
        b.getCountDownLatch(name).countDown();
        await.get(WAKE_UP_MS, MILLISECONDS);

        String stale = name + ":stale";
        DistributedCountDownLatch knownClosed = a.getCountDownLatch(stale);
        assertThat(knownClosed.trySetCount(1)).isTrue();
        b.getCountDownLatch(stale).countDown(); // opened behind a's back: a still believes it closed
        long start = System.nanoTime();
        knownClosed.awaitAsync().get(WAKE_UP_MS, MILLISECONDS);
        assertThat(knownClosed.await(10, SECONDS)).as("open, and now known to be").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(WAKE_UP_MS));
        Await.until(Duration.ofSeconds(5), () -> raw.subscribers(channel(stale)) == 0, "no subscription left");
    }

    /**
     * @return while {@code k} awaiters join (async, from one thread): checks (their PTTL, which only a check sends:
     *         the count-down script reads the count too), script calls; then from a count-down on: the same
     */
    private long[] awaitersCost(LockClient a, LockClient b, String latchName, int k) throws Exception {
        assertThat(b.getCountDownLatch(latchName).trySetCount(1)).isTrue();
        DistributedCountDownLatch latch = a.getCountDownLatch(latchName);
        long checks = raw.commandCalls("pttl");
        long scripts = raw.scriptCalls();
        List<CompletableFuture<Void>> awaits = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            awaits.add(latch.awaitAsync());
        }
        awaitQuiet(a);
        long joinedChecks = raw.commandCalls("pttl");
        long joinedScripts = raw.scriptCalls();
        assertThat(awaits).noneMatch(CompletableFuture::isDone);
        b.getCountDownLatch(latchName).countDown();
        for (CompletableFuture<Void> await : awaits) {
            await.get(WAKE_UP_MS, MILLISECONDS);
        }
        Thread.sleep(200); // a late check would show
        return new long[] {joinedChecks - checks, joinedScripts - scripts, raw.commandCalls("pttl") - joinedChecks,
                raw.scriptCalls() - joinedScripts};
    }

    /** Waits until client {@code a} has subscribed and its awaiters sent no check (PTTL) for 300 ms. */
    private void awaitQuiet(LockClient a) throws InterruptedException {
        Await.until(Duration.ofSeconds(5), () -> ((RedisLockClient) a).diagnostics().subscriptions() == 1,
                "subscribed");
        long seen = raw.commandCalls("pttl");
        while (true) {
            Thread.sleep(300);
            long now = raw.commandCalls("pttl");
            if (now == seen) {
                return;
            }
            seen = now;
        }
    }

    private static String channel(String latchName) {
        return "redisson_countdownlatch__channel__{" + latchName + "}";
    }
}
