package io.dlock.internal.wakeup;

import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message that lands while the only waiter goes to sleep is never lost: either the sleep ends at once, or the
 * wake-up stays stored. (A waker that looked for sleepers before storing the wake-up could miss a sleeper that
 * enqueued in between and then found no wake-up yet: it slept on, beside a stored wake-up, until its timeout.) Time
 * never moves here, so a sleep that missed its wake-up never ends. With the old order the wake-one case lost about one
 * sleep in ten here; the wake-all case needs the waker preempted between its two steps, which the latch benchmark
 * (bench S11, one sleeper per channel) hit every few thousand rounds and this loop rarely does.
 */
class WakeupHubRaceTest {
    private static final int ROUNDS = 20_000;

    private final WakeupHub hub = new WakeupHub(new PubSubPort() {
        @Override
        public CompletableFuture<Void> subscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }
    }, new ManualScheduler());

    @Test
    void aWakeAllMessageRacingASleepWakesItOrIsKept() throws Exception {
        assertNoLostWakeup(hub.join("all", true), "all", "1");
    }

    @Test
    void aWakeOneMessageRacingASleepWakesItOrIsKept() throws Exception {
        assertNoLostWakeup(hub.join("one"), "one", "0");
    }

    private void assertNoLostWakeup(WakeupHub.Subscription waiter, String channel, String message)
            throws InterruptedException {
        AtomicInteger go = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        Thread waker = new Thread(() -> {
            for (int round = 1; round <= ROUNDS; round++) {
                while (go.get() < round) {
                    Thread.onSpinWait();
                }
                hub.onMessage(channel, message);
                sent.set(round);
            }
        });
        waker.setDaemon(true);
        waker.start();
        int lost = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            go.set(round);
            CompletableFuture<Boolean> sleep = waiter.sleep(60_000);
            while (sent.get() < round) {
                Thread.onSpinWait();
            }
            if (!sleep.isDone()) {
                lost++;
                // the stored wake-up (if any) ends the next sleep: drain it so that rounds stay independent
                hub.onMessage(channel, message);
            }
            // a wake-up stored in this round is taken now; a later sleep must not find one
            while (waiter.sleep(60_000).isDone()) {
                Thread.onSpinWait();
            }
            hub.onMessage(channel, message); // wake the sleep just made
        }
        waker.join(10_000);
        assertThat(lost).as("sleeps that missed a wake-up sent while they began").isZero();
    }
}
