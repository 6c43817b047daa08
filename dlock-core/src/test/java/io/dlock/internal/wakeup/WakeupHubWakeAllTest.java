package io.dlock.internal.wakeup;

import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Channels joined with {@code everyMessageWakesAll} (read-write locks): {@code 0} wakes every sleeper too. */
class WakeupHubWakeAllTest {
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
    void zeroWakesEverySleeperOfAWakeAllChannel() {
        WakeupHub.Subscription reader = hub.join("rw", true);
        WakeupHub.Subscription writer = hub.join("rw", true);
        CompletableFuture<Boolean> readerSleep = reader.sleep(10_000);
        CompletableFuture<Boolean> writerSleep = writer.sleep(10_000);

        hub.onMessage("rw", "0");
        assertThat(readerSleep).isCompletedWithValue(true);
        assertThat(writerSleep).isCompletedWithValue(true);
    }

    @Test
    void theFlagStaysWithTheChannelWhileAnyWaiterIsJoined() {
        WakeupHub.Subscription first = hub.join("rw", true);
        WakeupHub.Subscription plain = hub.join("rw");
        CompletableFuture<Boolean> a = first.sleep(10_000);
        CompletableFuture<Boolean> b = plain.sleep(10_000);
        hub.onMessage("rw", "0");
        assertThat(List.of(a, b)).allMatch(CompletableFuture::isDone);

        first.close();
        plain.close();
        // a new channel object after everybody left: plain joiners get "wake one" again
        WakeupHub.Subscription x = hub.join("rw");
        WakeupHub.Subscription y = hub.join("rw");
        CompletableFuture<Boolean> sx = x.sleep(10_000);
        CompletableFuture<Boolean> sy = y.sleep(10_000);
        hub.onMessage("rw", "0");
        assertThat(List.of(sx, sy)).filteredOn(CompletableFuture::isDone).hasSize(1);
        x.close();
        y.close();
    }

    @Test
    void otherChannelsKeepWakeOne() {
        WakeupHub.Subscription rw = hub.join("rw", true);
        WakeupHub.Subscription a = hub.join("plain");
        WakeupHub.Subscription b = hub.join("plain");
        CompletableFuture<Boolean> sa = a.sleep(10_000);
        CompletableFuture<Boolean> sb = b.sleep(10_000);
        hub.onMessage("plain", "0");
        assertThat(List.of(sa, sb)).filteredOn(CompletableFuture::isDone).hasSize(1);
        rw.close();
        a.close();
        b.close();
    }
}
