package io.dlock.internal.wakeup;

import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Wake-up semantics of the hub, with a fake pub/sub port and manual time. */
class WakeupHubTest {
    private final ManualScheduler time = new ManualScheduler();
    private final RecordingPubSubPort port = new RecordingPubSubPort();
    private final List<String> commands = port.commands();
    private final WakeupHub hub = new WakeupHub(port, time);

    @Test
    void oneSubscriptionPerChannelSharedByAllWaiters() {
        WakeupHub.Subscription a = hub.join("c");
        WakeupHub.Subscription b = hub.join("c");
        assertThat(commands).containsExactly("SUBSCRIBE c");
        a.close();
        a.close();
        assertThat(hub.subscriptionCount()).isEqualTo(1);
        b.close();
        assertThat(commands).containsExactly("SUBSCRIBE c", "UNSUBSCRIBE c");
        assertThat(hub.subscriptionCount()).isZero();
    }

    @Test
    void aKeptChannelStaysSubscribedBetweenWaitersAndStoresNoWakeupWithoutOne() {
        WakeupHub.Subscription keep = hub.keep(List.of("c", "d"));
        assertThat(commands).containsExactly("SUBSCRIBE c", "SUBSCRIBE d");
        WakeupHub.Subscription first = hub.joinAll(List.of("c", "d"));
        hub.onMessage("c", "1"); // stores a wake-up for the joined waiter
        first.close();
        WakeupHub.Subscription second = hub.joinAll(List.of("c", "d"));
        assertThat(commands).as("a waiter's join and leave cost no (un)subscribe while kept")
                .containsExactly("SUBSCRIBE c", "SUBSCRIBE d");
        assertThat(second.ready()).isDone();
        assertThat(second.sleep(10_000)).as("the first waiter's stored wake-up went with it").isNotDone();
        second.close();

        hub.onMessage("c", "0"); // nobody waits: nothing stored
        WakeupHub.Subscription third = hub.join("c", true);
        assertThat(third.sleep(10_000)).isNotDone();
        hub.onMessage("c", "0");
        assertThat(hub.sleeperCount()).isZero();
        third.close();

        keep.close();
        keep.close();
        assertThat(commands).containsExactly("SUBSCRIBE c", "SUBSCRIBE d", "UNSUBSCRIBE c", "UNSUBSCRIBE d");
        assertThat(hub.subscriptionCount()).isZero();
    }

    @Test
    void aKeepReleasedWhileWaitersRemainLeavesTheSubscriptionToThem() {
        WakeupHub.Subscription waiter = hub.join("c");
        WakeupHub.Subscription keep = hub.keep(List.of("c"));
        keep.close();
        assertThat(hub.listensTo("c")).isTrue();
        waiter.close();
        assertThat(commands).containsExactly("SUBSCRIBE c", "UNSUBSCRIBE c");
    }

    @Test
    void unlockMessageWakesExactlyOneSleeper() {
        WakeupHub.Subscription a = hub.join("c");
        WakeupHub.Subscription b = hub.join("c");
        CompletableFuture<Boolean> sleepA = a.sleep(10_000);
        CompletableFuture<Boolean> sleepB = b.sleep(10_000);

        hub.onMessage("c", "0");
        assertThat(List.of(sleepA, sleepB)).filteredOn(CompletableFuture::isDone).hasSize(1);

        hub.onMessage("c", "0");
        assertThat(sleepA).isCompletedWithValue(true);
        assertThat(sleepB).isCompletedWithValue(true);
    }

    @Test
    void wakeAllMessageWakesEverySleeper() {
        WakeupHub.Subscription a = hub.join("c");
        WakeupHub.Subscription b = hub.join("c");
        CompletableFuture<Boolean> sleepA = a.sleep(10_000);
        CompletableFuture<Boolean> sleepB = b.sleep(10_000);
        hub.onMessage("c", "1");
        assertThat(sleepA).isCompletedWithValue(true);
        assertThat(sleepB).isCompletedWithValue(true);
    }

    @Test
    void wakeupWithNobodyAsleepIsKeptForTheNextSleeper() {
        WakeupHub.Subscription a = hub.join("c");
        hub.onMessage("c", "0");
        hub.onMessage("c", "0");
        assertThat(a.sleep(10_000)).isCompletedWithValue(true);
        // At most one stored wake-up per joined waiter.
        assertThat(a.sleep(10_000)).isNotDone();
    }

    @Test
    void sleepEndsAtItsTimeoutWithFalse() {
        WakeupHub.Subscription a = hub.join("c");
        CompletableFuture<Boolean> sleep = a.sleep(500);
        time.advanceMillis(499);
        assertThat(sleep).isNotDone();
        time.advanceMillis(1);
        assertThat(sleep).isCompletedWithValue(false);
        assertThat(hub.sleeperCount()).isZero();
    }

    @Test
    void timedOutSleeperDoesNotSwallowTheNextWakeup() {
        WakeupHub.Subscription a = hub.join("c");
        WakeupHub.Subscription b = hub.join("c");
        CompletableFuture<Boolean> early = a.sleep(100);
        CompletableFuture<Boolean> late = b.sleep(10_000);
        time.advanceMillis(100);
        assertThat(early).isCompletedWithValue(false);
        hub.onMessage("c", "0");
        assertThat(late).isCompletedWithValue(true);
    }

    @Test
    void passedOnWakeupReachesAnotherSleeper() {
        WakeupHub.Subscription a = hub.join("c");
        WakeupHub.Subscription b = hub.join("c");
        CompletableFuture<Boolean> sleepB = b.sleep(10_000);
        a.passOnWakeup();
        assertThat(sleepB).isCompletedWithValue(true);
    }

    @Test
    void messagesOnOtherChannelsAndOtherValuesAreIgnored() {
        WakeupHub.Subscription a = hub.join("c");
        CompletableFuture<Boolean> sleep = a.sleep(10_000);
        hub.onMessage("other", "0");
        hub.onMessage("c", "42");
        assertThat(sleep).isNotDone();
    }

    @Test
    void aWakeAllReceivedBeforeAnAttemptDoesNotEndTheSleepAfterIt() {
        WakeupHub.Subscription waiter = hub.join("c", true);
        hub.onMessage("c", "1");
        waiter.attempting(); // the attempt's answer covers that release
        assertThat(waiter.sleep(10_000)).as("covered by the attempt").isNotDone();
        hub.onMessage("c", "1");
        assertThat(hub.sleeperCount()).isZero();
        hub.onMessage("c", "1"); // after the wake-up, before the next attempt
        assertThat(waiter.sleep(10_000)).as("a message after the attempt was sent").isCompletedWithValue(true);
        waiter.attempting();
        assertThat(waiter.sleep(10_000)).isNotDone();
        waiter.close();
    }

    @Test
    void aGroupReleaseWakesAMultiChannelWaiterOnceWhenItAttemptsInBetween() {
        // one script publishes on every member's channel: one wake-up, and one retry at most, not one per channel
        WakeupHub.Subscription group = hub.joinAll(List.of("a", "b", "c"));
        CompletableFuture<Boolean> sleep = group.sleep(10_000);
        hub.onMessage("a", "0");
        hub.onMessage("b", "0");
        hub.onMessage("c", "0");
        assertThat(sleep).isCompletedWithValue(true);
        group.attempting();
        assertThat(group.sleep(10_000)).as("the other two messages came before the attempt").isNotDone();
        group.close();

        WakeupHub.Subscription unaware = hub.joinAll(List.of("a", "b", "c"));
        CompletableFuture<Boolean> first = unaware.sleep(10_000);
        hub.onMessage("a", "0");
        hub.onMessage("b", "0");
        assertThat(first).isCompletedWithValue(true);
        assertThat(unaware.sleep(10_000)).as("without attempting(): every wake-up is kept, as before")
                .isCompletedWithValue(true);
        unaware.close();
    }

    @Test
    void eachWaiterOfAChannelHasItsOwnWakeAllWhateverTheOthersDo() {
        WakeupHub.Subscription attempted = hub.join("c", true);
        WakeupHub.Subscription asleep = hub.join("c", true);
        hub.onMessage("c", "1");
        attempted.attempting();
        assertThat(attempted.sleep(10_000)).isNotDone();
        assertThat(asleep.sleep(10_000)).as("its own wake-up, not used up by the other waiter")
                .isCompletedWithValue(true);
        assertThat(asleep.sleep(10_000)).as("one per message").isNotDone();
        attempted.close();
        asleep.close();
    }

    @Test
    void channelsAreConfirmedOnlyWhileSubscribedAndAnswered() {
        assertThat(hub.confirmed(List.of("a", "b"))).isFalse();
        WakeupHub.Subscription a = hub.join("a");
        assertThat(hub.confirmed(List.of("a"))).as("the fake port confirms at once").isTrue();
        assertThat(hub.confirmed(List.of("a", "b"))).as("every channel must be listened to").isFalse();
        WakeupHub.Subscription keep = hub.keep(List.of("b"));
        assertThat(hub.confirmed(List.of("a", "b"))).isTrue();
        a.close();
        keep.close();
        assertThat(hub.confirmed(List.of("a"))).isFalse();
        assertThat(commands).as("asking sends nothing").containsExactly("SUBSCRIBE a", "SUBSCRIBE b", "UNSUBSCRIBE a",
                "UNSUBSCRIBE b");
    }

    @Test
    void anOwnersOwnChannelLingersAfterItsWaitUntilUnusedForALingerPeriod() {
        long lingerMs = WakeupHub.LINGER_NANOS / 1_000_000;
        WakeupHub.Subscription first = hub.joinLingering("own", false);
        first.close();
        assertThat(hub.confirmed(List.of("own"))).as("kept after its last waiter left").isTrue();

        hub.onMessage("own", "0"); // nobody waits: a lingering channel stores nothing, as a kept one
        time.advanceMillis(lingerMs / 2);
        WakeupHub.Subscription second = hub.joinLingering("own", false);
        assertThat(second.ready()).isDone();
        assertThat(second.sleep(10_000)).as("no wake-up stored while it lingered").isNotDone();
        hub.onMessage("own", "0");
        second.close();
        time.advanceMillis(lingerMs);
        assertThat(hub.listensTo("own")).as("used within the period: kept for another").isTrue();
        time.advanceMillis(lingerMs);
        assertThat(hub.listensTo("own")).as("unused for a whole period: let go").isFalse();
        assertThat(commands).as("two waits, one subscribe").containsExactly("SUBSCRIBE own", "UNSUBSCRIBE own");
    }

    @Test
    void aLingeringChannelJoinedWhenItsTimerFiresStaysWithItsWaiterAndLingersAgainAfter() {
        long lingerMs = WakeupHub.LINGER_NANOS / 1_000_000;
        hub.joinLingering("own", false).close();
        WakeupHub.Subscription waiting = hub.joinLingering("own", false);
        time.advanceMillis(3 * lingerMs);
        assertThat(hub.listensTo("own")).as("a waiter is joined").isTrue();
        waiting.close();
        time.advanceMillis(lingerMs);
        assertThat(hub.listensTo("own")).as("left within the last period").isTrue();
        time.advanceMillis(lingerMs);
        assertThat(hub.listensTo("own")).isFalse();
        assertThat(hub.subscriptionCount()).isZero();
        assertThat(commands).containsExactly("SUBSCRIBE own", "UNSUBSCRIBE own");
    }

    @Test
    void aPlainJoinNeverLingers() {
        hub.join("shared").close();
        assertThat(commands).containsExactly("SUBSCRIBE shared", "UNSUBSCRIBE shared");
    }
}
