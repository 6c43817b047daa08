package io.dlock.internal.wakeup;

import io.dlock.internal.ManualScheduler;
import io.dlock.internal.wakeup.WakeupChannel.Step;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message that lands while the only waiter goes to sleep is never lost: either the sleep ends at once, or the
 * wake-up stays stored. (A waker that looked for sleepers before storing the wake-up could miss a sleeper that
 * enqueued in between and then found no wake-up yet: it slept on, beside a stored wake-up, until its timeout.)
 *
 * <p>Deterministic: a sleep and a wake-up each take two steps, and the test runs the other side's whole operation
 * exactly between them ({@link WakeupChannel.Steps}, on the same thread), for each of the three places one can cut
 * the other: the waker half-way (the interleaving the old order lost), the sleeper after its first look, the sleeper
 * after enqueueing. Time never moves here, so a sleep that missed its wake-up never ends.
 */
class WakeupHubRaceTest {

    /** Runs {@code other} once, when {@code at} is first reached. */
    private static final class Cut implements WakeupChannel.Steps {
        private final Step at;
        private Runnable other;

        Cut(Step at) {
            this.at = at;
        }

        @Override
        public void reached(Step step) {
            if (step == at && other != null) {
                Runnable run = other;
                other = null; // the other side's steps report too: it runs whole, once
                run.run();
            }
        }
    }

    private static WakeupHub hub(Cut cut) {
        return new WakeupHub(new PubSubPort() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                return CompletableFuture.completedFuture(null);
            }
        }, new ManualScheduler(), cut);
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void aWakeOneMessageRacingASleepWakesItExactlyOnce(Step cutAt) {
        assertWokenOnce(cutAt, "one", "0", false);
    }

    @ParameterizedTest
    @EnumSource(Step.class)
    void aWakeAllMessageRacingASleepWakesIt(Step cutAt) {
        assertWokenOnce(cutAt, "all", "1", true);
    }

    /** A semaphore's channel: a count of 1 wakes one sleeper, by the wake-one path. */
    @ParameterizedTest
    @EnumSource(Step.class)
    void aPermitCountRacingASleepWakesItExactlyOnce(Step cutAt) {
        Cut cut = new Cut(cutAt);
        WakeupHub hub = hub(cut);
        assertWokenOnce(cut, hub, hub.joinCounting("sem"), "sem", "1", false);
    }

    private static void assertWokenOnce(Step cutAt, String channel, String message, boolean wakesAll) {
        Cut cut = new Cut(cutAt);
        WakeupHub hub = hub(cut);
        assertWokenOnce(cut, hub, hub.join(channel, wakesAll), channel, message, wakesAll);
    }

    private static void assertWokenOnce(Cut cut, WakeupHub hub, WakeupHub.Subscription waiter, String channel,
            String message, boolean wakesAll) {
        AtomicReference<CompletableFuture<Boolean>> sleep = new AtomicReference<>();
        if (cut.at == Step.WAKER_HALFWAY) {
            cut.other = () -> sleep.set(waiter.sleep(60_000));
            hub.onMessage(channel, message);
        } else {
            cut.other = () -> hub.onMessage(channel, message);
            sleep.set(waiter.sleep(60_000));
        }
        assertThat(cut.other).as("the other side ran at %s", cut.at).isNull();
        assertThat(sleep.get()).as("the sleep that raced the message (cut at %s)", cut.at).isCompletedWithValue(true);
        assertThat(hub.sleeperCount()).as("sleepers left").isZero();
        if (!wakesAll) {
            // one message, one wake-up: it was used by the sleep, so none is stored for the next one
            CompletableFuture<Boolean> next = waiter.sleep(60_000);
            assertThat(next).as("the next sleep (cut at %s)", cut.at).isNotDone();
            next.complete(false);
        }
        waiter.close();
    }
}
