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

    /**
     * The flush is one more SUBSCRIBE of a channel still joined; its answer says whether a message came since the
     * waiter joined, counting those delivered before the confirmation (they came first on the connection), and is
     * false when the SUBSCRIBE failed.
     */
    @Test
    void aFlushTellsWhetherAMessageCameBeforeItsConfirmation() {
        List<CompletableFuture<Void>> confirmations = new java.util.ArrayList<>();
        RecordingPubSubPort recorded = new RecordingPubSubPort();
        WakeupHub flushing = new WakeupHub(new PubSubPort() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                recorded.subscribe(channel);
                CompletableFuture<Void> confirmed = new CompletableFuture<>();
                confirmations.add(confirmed);
                return confirmed;
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                return recorded.unsubscribe(channel);
            }
        }, new ManualScheduler());
        WakeupHub.Subscription group = flushing.join("latch", true);
        confirmations.get(0).complete(null);
        flushing.onMessage("latch", "0"); // before the announcer joined: not its own
        WakeupHub.Subscription announcer = flushing.join("latch", true);

        CompletableFuture<Boolean> quiet = announcer.heardAfterFlush();
        assertThat(recorded.commands()).containsExactly("SUBSCRIBE latch", "SUBSCRIBE latch");
        assertThat(quiet).isNotDone();
        confirmations.get(1).complete(null);
        assertThat(quiet).isCompletedWithValue(false);

        CompletableFuture<Boolean> heard = announcer.heardAfterFlush();
        flushing.onMessage("latch", "0"); // delivered before the flush's confirmation
        confirmations.get(2).complete(null);
        assertThat(heard).isCompletedWithValue(true);

        CompletableFuture<Boolean> failed = flushing.join("other", true).heardAfterFlush();
        confirmations.get(3).complete(null);
        confirmations.get(4).completeExceptionally(new IllegalStateException("connection lost"));
        assertThat(failed).isCompletedWithValue(false);

        announcer.close();
        group.close();
        assertThat(recorded.commands()).endsWith("UNSUBSCRIBE latch");
    }
}
