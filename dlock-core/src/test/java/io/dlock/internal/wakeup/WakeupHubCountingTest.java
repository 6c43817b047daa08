package io.dlock.internal.wakeup;

import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A semaphore's channel ({@link WakeupHub#joinCounting}): a message is a permit count, waking that many at most. */
class WakeupHubCountingTest {
    private final ManualScheduler time = new ManualScheduler();
    private final WakeupHub hub = new WakeupHub(new PubSubPort() {
        @Override
        public CompletableFuture<Void> subscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> unsubscribe(String channel) {
            return CompletableFuture.completedFuture(null);
        }
    }, time);

    private List<CompletableFuture<Boolean>> sleepers(int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> hub.joinCounting("s").sleep(10_000)).toList();
    }

    @Test
    void aCountWakesThatManySleepers() {
        List<CompletableFuture<Boolean>> sleeping = sleepers(4);
        hub.onMessage("s", "2");
        assertThat(sleeping).filteredOn(CompletableFuture::isDone).hasSize(2);
        hub.onMessage("s", "5");
        assertThat(sleeping).allMatch(f -> f.getNow(false));
    }

    @Test
    void zeroNegativeAndGarbageWakeNobody() {
        List<CompletableFuture<Boolean>> sleeping = sleepers(2);
        hub.onMessage("s", "0");
        hub.onMessage("s", "-3");
        hub.onMessage("s", "not a number");
        assertThat(sleeping).noneMatch(CompletableFuture::isDone);
        hub.onMessage("s", "1");
        assertThat(sleeping).filteredOn(CompletableFuture::isDone).hasSize(1);
    }

    @Test
    void aCountWithNobodyAsleepIsKeptAtMostOncePerWaiter() {
        WakeupHub.Subscription a = hub.joinCounting("s");
        WakeupHub.Subscription b = hub.joinCounting("s");
        hub.onMessage("s", "100");
        assertThat(a.sleep(10_000)).isCompletedWithValue(true);
        assertThat(b.sleep(10_000)).isCompletedWithValue(true);
        assertThat(a.sleep(10_000)).as("no more than one kept wake-up per joined waiter").isNotDone();
    }
}
