package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.it.support.LatchChannels;
import io.dlock.it.support.RawRedis;
import io.dlock.it.support.Redissons;
import io.dlock.it.support.Subscribers;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.ArrayList;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The count-down latch: its contract, bad input, expiry as every awaiter sees it, and Redisson 4.7's
 * {@code RCountDownLatch} on the same name in both directions. Clients run with a 30 s watchdog, so the bounded
 * re-check is 10 s: a wake-up within {@link #WAKE_UP_MS} came from a message.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class CountDownLatchIT {
    static final long WAKE_UP_MS = 2000;

    String name;
    RawRedis raw;
    RedissonClient redisson;
    Workers workers;

    @BeforeEach
    void setUp(RedisTopology topology, TestInfo info) {
        name = "it:" + getClass().getSimpleName() + ":" + info.getTestMethod().orElseThrow().getName();
        raw = RawRedis.connect(topology.uri());
        workers = new Workers("latch-worker");
        redisson = Redissons.connect(topology, 30_000);
    }

    @AfterEach
    void tearDown() {
        try {
            workers.close();
            redisson.shutdown(0, 5, SECONDS);
        } finally {
            raw.close();
        }
    }

    @Test
    void setCountDownAndAwait(LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.getName()).isEqualTo(name);
        // a wait long enough for the check to answer on a loaded host (a zero wait may end before it, false)
        assertThat(latch.await(5, SECONDS)).as("a latch never set is open").isTrue();
        assertThat(latch.getCount()).isZero();
        assertThat(latch.remainTimeToLive()).isEqualTo(-2L);

        assertThat(latch.trySetCount(2)).isTrue();
        assertThat(b.getCountDownLatch(name).trySetCount(5)).as("closed already").isFalse();
        assertThat(latch.getCount()).isEqualTo(2);
        assertThat(raw.sync().get(name)).as("Redisson's key: the count as decimal").isEqualTo("2");
        assertThat(latch.remainTimeToLive()).isEqualTo(-1L);

        Future<Long> waiter = workers.submit(() -> {
            long start = System.nanoTime();
            b.getCountDownLatch(name).await();
            return (System.nanoTime() - start) / 1_000_000;
        });
        assertThat(latch.await(200, MILLISECONDS)).as("still closed").isFalse();
        latch.countDown();
        assertThat(b.getCountDownLatch(name).getCount()).isEqualTo(1);
        Subscribers.await(raw, name, 1); // the waiter listens (and the timed await above has left)
        Await.during(Duration.ofMillis(200), () -> !waiter.isDone(), "the waiter waits while the count is 1");
        long before = System.nanoTime();
        b.getCountDownLatch(name).countDown();
        Workers.get(waiter, Duration.ofMillis(WAKE_UP_MS));
        assertThat((System.nanoTime() - before) / 1_000_000).isLessThan(WAKE_UP_MS);
        assertThat(raw.exists(name)).as("the key is deleted at zero").isFalse();
        latch.countDown();
        assertThat(raw.exists(name)).as("counting down an open latch leaves nothing").isFalse();

        assertThat(latch.trySetCount(1)).as("reusable once open").isTrue();
        latch.countDown();
        assertThat(latch.await(Duration.ofSeconds(5))).isTrue();
    }

    /**
     * Awaiters of one client join the latch's channel one after another while another client counts down: the ones
     * that join after the first (the channel already subscribed) must check again after joining, or a count-down
     * between their check and their join wakes only the others and leaves them asleep until the re-check (10 s here).
     */
    @Test
    void awaitersJoiningAnAlreadySubscribedChannelAllWakeOnTheOpening(
            @ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a, LockClient b) throws Exception {
        java.util.concurrent.ExecutorService starters = java.util.concurrent.Executors.newFixedThreadPool(5);
        try {
            for (int round = 0; round < 60; round++) {
                String roundName = name + ":" + round;
                assertThat(b.getCountDownLatch(roundName).trySetCount(1)).isTrue();
                DistributedCountDownLatch latch = a.getCountDownLatch(roundName);
                java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(5);
                List<Future<CompletableFuture<Void>>> awaits = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    awaits.add(starters.submit(() -> {
                        go.await();
                        return latch.awaitAsync();
                    }));
                }
                starters.submit(() -> {
                    go.await();
                    b.getCountDownLatch(roundName).countDown(); // while the awaiters check and join
                    return null;
                }).get(10, SECONDS);
                long start = System.nanoTime();
                for (Future<CompletableFuture<Void>> await : awaits) {
                    await.get(10, SECONDS).get(10, SECONDS);
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("round %d: every awaiter woke", round)
                        .isLessThan(Duration.ofMillis(WAKE_UP_MS));
            }
        } finally {
            starters.shutdownNow();
        }
    }

    @Test
    void asyncTwins(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCountAsync(1, Duration.ofMinutes(1)).get(5, SECONDS)).isTrue();
        assertThat(latch.getCountAsync().get(5, SECONDS)).isEqualTo(1);
        assertThat(latch.remainTimeToLiveAsync().get(5, SECONDS)).isBetween(50_000L, 60_000L);
        CompletableFuture<Void> open = latch.awaitAsync();
        CompletableFuture<Boolean> timed = latch.awaitAsync(100, MILLISECONDS);
        assertThat(timed.get(5, SECONDS)).isFalse();
        assertThat(open).isNotDone();
        latch.countDownAsync().get(5, SECONDS);
        open.get(WAKE_UP_MS, MILLISECONDS);
        assertThat(latch.deleteAsync().get(5, SECONDS)).isFalse();
    }

    @Test
    void cancelledAwaitLeavesNoSubscription(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1);
        CompletableFuture<Void> open = latch.awaitAsync();
        RedisLockClient client = (RedisLockClient) a;
        Await.until(Duration.ofSeconds(5), () -> client.diagnostics().subscriptions() == 1, "subscribed");
        open.cancel(false);
        Await.until(Duration.ofSeconds(5), () -> client.diagnostics().subscriptions() == 0, "unsubscribed");
    }

    @Test
    void interruptEndsAnAwait(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1);
        Thread current = Thread.currentThread();
        Future<Void> interrupter = workers.submit(() -> {
            try {
                // interrupt the await itself: once it listens and its thread is parked
                Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, name) == 1
                        && (current.getState() == Thread.State.WAITING
                        || current.getState() == Thread.State.TIMED_WAITING),
                        () -> "await() parked and listening: " + current.getState() + ", "
                                + Subscribers.count(raw, name) + " listening");
            } finally {
                current.interrupt(); // in any case: the await must not outlive a failed check
            }
            return null;
        });
        assertThatThrownBy(latch::await).isInstanceOf(InterruptedException.class);
        Workers.get(interrupter, Duration.ofSeconds(5)); // it was parked and listening when interrupted
    }

    @Test
    void badInputIsRefusedNamingTheLatch(LockClient a) {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThatThrownBy(() -> latch.trySetCount(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name).hasMessageContaining("count must be at least 1");
        assertThatThrownBy(() -> latch.trySetCount(-3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-3");
        assertThatThrownBy(() -> latch.trySetCount(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ttl");
        assertThatThrownBy(() -> latch.trySetCount(1, Duration.ofDays(40_000)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> latch.trySetCount(1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> a.getCountDownLatch(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> a.getCountDownLatch(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThat(raw.keys()).isEmpty();
    }

    /**
     * Issue 27 #7: a count above 2^53 cannot be held exactly by the scripts (Lua numbers are doubles), and
     * {@code Long.MAX_VALUE} even read back as a negative count, so the latch opened at once. Such counts are refused
     * before anything is sent: nothing written, nothing published; 2^53 itself works exactly.
     */
    @Test
    void countsTheScriptsCannotHoldExactlyAreRefusedLeavingNothing(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        try (RawRedis.Subscription channel = raw.subscribe(LatchChannels.of(name))) {
            for (long count : new long[]{Long.MAX_VALUE, (1L << 53) + 1}) {
                assertThatThrownBy(() -> latch.trySetCount(count)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("count-down latch '" + name + "'")
                        .hasMessageContaining(Long.toString(count));
                assertThatThrownBy(() -> latch.trySetCount(count, Duration.ofHours(1)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(name);
                assertThatThrownBy(() -> latch.trySetCountAsync(count)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> latch.trySetCountAsync(count, Duration.ofHours(1)))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(raw.keys()).as("nothing written").isEmpty();

            assertThat(latch.trySetCount(DistributedCountDownLatch.MAX_COUNT)).isTrue();
            assertThat(raw.sync().get(name)).isEqualTo("9007199254740992");
            assertThat(latch.getCount()).isEqualTo(1L << 53);
            assertThat(latch.await(100, MILLISECONDS)).as("a latch of 2^53 is closed").isFalse();
            latch.countDown();
            assertThat(latch.getCount()).isEqualTo((1L << 53) - 1);
            assertThat(latch.delete()).isTrue();
            assertThat(LatchChannels.take(channel, 2)).as("only the accepted count and the delete published")
                    .containsExactly("1", "0");
        }
    }

    /**
     * A count above 2^53 that Redisson wrote (it takes any long) reads back exactly, and the latch is closed: a
     * count-down keeps it exact; an await does not return {@code true}.
     */
    @Test
    void aCountAbove2To53WrittenByRedissonReadsExactly(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        assertThat(theirs.trySetCount(Long.MAX_VALUE)).isTrue();
        assertThat(latch.getCount()).isEqualTo(Long.MAX_VALUE);
        assertThat(latch.await(200, MILLISECONDS)).as("closed").isFalse();
        assertThat(latch.awaitAsync(Duration.ZERO).get(5, SECONDS)).isFalse();
        latch.countDown();
        assertThat(raw.sync().get(name)).isEqualTo(Long.toString(Long.MAX_VALUE - 1));
        assertThat(latch.getCount()).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(theirs.getCount()).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(a.inspectCountDownLatch(name).count()).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(latch.trySetCount(1)).as("closed already").isFalse();
    }

    /**
     * Issue 27 #13: a wait of {@code ChronoUnit.FOREVER} is "no limit" (as for the locks), not an
     * {@code ArithmeticException}; a TTL beyond {@link DistributedCountDownLatch#MAX_TTL} is refused before anything
     * is written or published.
     */
    @Test
    void aForeverWaitHasNoLimitAndAnOverlongTtlLeavesNothing(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        Duration forever = ChronoUnit.FOREVER.getDuration();
        assertThat(latch.await(forever)).as("open: at once").isTrue();
        assertThat(latch.awaitAsync(forever).get(5, SECONDS)).isTrue();
        // a negative wait is one check, answered within the deadline rule's grace (20 ms) or read as "not yet": on a
        // loaded host one check in a few may take longer, so it is asked up to 5 times and must say open once
        boolean open = false;
        for (int i = 0; i < 5 && !open; i++) {
            open = latch.await(Duration.ofMillis(-5));
        }
        assertThat(open).as("a negative wait is one check").isTrue();
        try (RawRedis.Subscription channel = raw.subscribe(LatchChannels.of(name))) {
            for (Duration ttl : List.of(forever, Duration.ofMillis(Long.MAX_VALUE), Duration.ofSeconds(-1))) {
                assertThatThrownBy(() -> latch.trySetCount(3, ttl)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("count-down latch '" + name + "'").hasMessageContaining("ttl");
                assertThatThrownBy(() -> latch.trySetCountAsync(3, ttl))
                        .isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(raw.keys()).as("nothing written").isEmpty();

            assertThat(latch.trySetCount(1)).isTrue();
            CompletableFuture<Boolean> async = latch.awaitAsync(forever);
            Future<Boolean> sync = workers.submit(() -> latch.await(forever));
            Await.until(Duration.ofSeconds(5), () -> ((RedisLockClient) a).diagnostics().subscriptions() == 1
                    && ((RedisLockClient) a).latchWaitingCount() == 2, "the awaiters subscribed");
            assertThat(latch.await(0, MILLISECONDS)).as("closed").isFalse();
            assertThat(async).isNotDone();
            assertThat(sync).isNotDone();
            latch.countDown();
            assertThat(async.get(WAKE_UP_MS, MILLISECONDS)).isTrue();
            assertThat(Workers.get(sync, Duration.ofMillis(WAKE_UP_MS))).isTrue();
            assertThat(LatchChannels.take(channel, 2)).as("only the accepted count and the opening published")
                    .containsExactly("1", "0");
        }
    }

    @Test
    void aKeyThatIsNoLatchIsRefusedAndLeftAsItWas(LockClient a) {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        raw.sync().hset(name, "cart", "3 apples");
        assertThatThrownBy(latch::countDown).isInstanceOf(LockException.class)
                .hasMessageContaining("count-down latch '" + name + "'").hasMessageContaining("hash")
                .hasMessageNotContaining("apples");
        assertThatThrownBy(latch::getCount).isInstanceOf(LockException.class).hasMessageContaining("hash");
        assertThatThrownBy(() -> latch.trySetCount(1)).isInstanceOf(LockException.class);
        assertThatThrownBy(latch::await).isInstanceOf(LockException.class).hasMessageContaining(name);
        assertThatThrownBy(latch::delete).isInstanceOf(LockException.class);
        assertThat(raw.hgetall(name)).containsEntry("cart", "3 apples");

        raw.sync().del(name);
        raw.sync().set(name, "hello");
        assertThatThrownBy(latch::countDown).isInstanceOf(LockException.class)
                .hasMessageContaining("not a count").hasMessageNotContaining("hello");
        // the state read (GET and PTTL, no script) hands such a value to latch_state, which refuses it alike
        assertThatThrownBy(latch::getCount).isInstanceOf(LockException.class)
                .hasMessageContaining("not a count").hasMessageNotContaining("hello");
        // a wait long enough for the check to answer on a loaded host (a 0 wait answers "not yet" after 20 ms): the
        // refusal ends it at once
        assertThatThrownBy(() -> latch.await(5, SECONDS)).isInstanceOf(LockException.class)
                .hasMessageContaining("not a count");
        raw.sync().set(name, "007"); // DECR reads no leading zero: no count either
        assertThatThrownBy(latch::getCount).isInstanceOf(LockException.class).hasMessageContaining("not a count");
        assertThatThrownBy(latch::countDown).isInstanceOf(LockException.class).hasMessageContaining("not a count");
        assertThat(raw.sync().get(name)).isEqualTo("007");
    }

    @Test
    void anExpiredLatchOpensForEveryAwaiter(LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(3, Duration.ofMillis(1500))).isTrue();
        assertThat(raw.pttl(name)).isBetween(1L, 1500L);
        latch.countDown();
        assertThat(raw.pttl(name)).as("a count-down keeps the TTL").isBetween(1L, 1500L);

        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        Future<Long> redissonWaiter = workers.submit(() -> {
            long start = System.nanoTime();
            theirs.await(); // untimed: only a message wakes it
            return (System.nanoTime() - start) / 1_000_000;
        });
        long start = System.nanoTime();
        latch.await(); // the participants "died": nobody counts down any more
        long waited = (System.nanoTime() - start) / 1_000_000;
        assertThat(waited).as("dlock's awaiter returns when the TTL runs out").isBetween(500L, 1500L + WAKE_UP_MS);
        Workers.get(redissonWaiter, Duration.ofMillis(WAKE_UP_MS));
        assertThat(latch.getCount()).isZero();
        assertThat(theirs.getCount()).isZero();
        assertThat(raw.exists(name)).isFalse();
    }

    @Test
    void aLostMessageDelaysAWakeUpByTheBoundedRecheckAtMost(
            @ClientSettings(watchdogTimeoutMillis = 900) LockClient a) throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1); // no TTL: only a message or the re-check (900 / 3 = 300 ms) can wake the awaiter
        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        Future<Void> redissonWaiter = workers.submit(() -> {
            theirs.await();
            return null;
        });
        CompletableFuture<Void> ours = latch.awaitAsync();
        Subscribers.await(raw, name, 2); // Redisson's awaiter and ours listen
        raw.sync().del(name); // opened behind everybody's back: no message
        long start = System.nanoTime();
        ours.get(WAKE_UP_MS, MILLISECONDS);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1000L);
        // dlock's awaiter announced the opening, which Redisson's untimed awaiter needed
        Workers.get(redissonWaiter, Duration.ofMillis(WAKE_UP_MS));
    }

    @Test
    void redissonCountDownWakesDlockAwaiters(LockClient a) throws Exception {
        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        assertThat(theirs.trySetCount(2)).isTrue();
        DistributedCountDownLatch ours = a.getCountDownLatch(name);
        assertThat(ours.getCount()).isEqualTo(2);
        assertThat(ours.trySetCount(7)).isFalse();
        CompletableFuture<Void> asyncWaiter = ours.awaitAsync();
        Future<Boolean> syncWaiter = workers.submit(() -> ours.await(30, SECONDS));
        Subscribers.await(raw, name, 1); // our client listens for its two awaiters
        theirs.countDown();
        assertThat(ours.getCount()).isEqualTo(1);
        Await.during(Duration.ofMillis(200), () -> !asyncWaiter.isDone() && !syncWaiter.isDone(),
                "our awaiters wait while the count is 1");
        theirs.countDown();
        asyncWaiter.get(WAKE_UP_MS, MILLISECONDS);
        assertThat(Workers.get(syncWaiter, Duration.ofMillis(WAKE_UP_MS))).isTrue();
    }

    @Test
    void dlockCountDownWakesRedissonAwaiters(LockClient a) throws Exception {
        DistributedCountDownLatch ours = a.getCountDownLatch(name);
        assertThat(ours.trySetCount(2)).isTrue();
        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        assertThat(theirs.trySetCount(9)).as("Redisson sees dlock's count").isFalse();
        assertThat(theirs.getCount()).isEqualTo(2);
        Future<Void> waiter = workers.submit(() -> {
            theirs.await();
            return null;
        });
        ours.countDown();
        theirs.countDown(); // mixed count-downs share one count
        Workers.get(waiter, Duration.ofMillis(WAKE_UP_MS));
        assertThat(ours.getCount()).isZero();
    }

    @Test
    void deleteOpensTheLatchForEveryAwaiter(LockClient a, LockClient b) throws Exception {
        DistributedCountDownLatch ours = a.getCountDownLatch(name);
        ours.trySetCount(5);
        RCountDownLatch theirs = redisson.getCountDownLatch(name);
        Future<Void> redissonWaiter = workers.submit(() -> {
            theirs.await();
            return null;
        });
        CompletableFuture<Void> dlockWaiter = b.getCountDownLatch(name).awaitAsync();
        Subscribers.await(raw, name, 2); // Redisson's awaiter and ours listen
        assertThat(ours.delete()).isTrue();
        dlockWaiter.get(WAKE_UP_MS, MILLISECONDS);
        Workers.get(redissonWaiter, Duration.ofMillis(WAKE_UP_MS));
        assertThat(ours.delete()).isFalse();
    }

    @Test
    void closingTheClientEndsItsAwaits(@ClientSettings(watchdogTimeoutMillis = 30_000) LockClient a)
            throws Exception {
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        latch.trySetCount(1);
        CompletableFuture<Void> open = latch.awaitAsync();
        Subscribers.await(raw, name, 1);
        assertThat(open).as("waiting").isNotDone();
        a.close();
        assertThatThrownBy(() -> open.get(5, SECONDS)).hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("closed");
    }
}
