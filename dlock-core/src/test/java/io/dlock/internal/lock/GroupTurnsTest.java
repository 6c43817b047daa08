package io.dlock.internal.lock;

import io.dlock.internal.ManualScheduler;
import io.dlock.internal.wakeup.RecordingPubSubPort;
import io.dlock.internal.wakeup.WakeupHub;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class GroupTurnsTest {
    private final RecordingPubSubPort port = new RecordingPubSubPort();
    private final List<String> commands = port.commands();
    private final WakeupHub hub = new WakeupHub(port, new ManualScheduler());
    private final GroupTurns turns = new GroupTurns(hub);
    private final List<String> channels = List.of("ca", "cb");

    @Test
    void theFirstHasItsTurnAtOnceAndEachLeavingHeadHandsItToTheNext() {
        CompletableFuture<Void> first = turns.enter("a\nb", channels);
        CompletableFuture<Void> second = turns.enter("a\nb", channels);
        CompletableFuture<Void> third = turns.enter("a\nb", channels);
        CompletableFuture<Void> otherLine = turns.enter("a\nc", List.of("ca", "cc"));
        assertThat(first).isDone();
        assertThat(otherLine).as("another set of members is another line").isDone();
        assertThat(second).isNotDone();

        turns.leave("a\nb", third); // gave up before its turn: nobody else's turn changes
        assertThat(second).isNotDone();
        assertThat(turns.size("a\nb")).isEqualTo(2);

        turns.leave("a\nb", first);
        assertThat(second).isDone();
        assertThat(third).as("left already").isNotDone();
        turns.leave("a\nb", second);
        assertThat(turns.size("a\nb")).isZero();
        turns.leave("a\nb", second); // twice: nothing happens
        assertThat(turns.enter("a\nb", channels)).as("an empty line starts over").isDone();
    }

    @Test
    void aLineKeepsItsChannelsSubscribedFromItsSecondPlaceUntilItIsEmpty() {
        CompletableFuture<Void> alone = turns.enter("a\nb", channels);
        turns.leave("a\nb", alone);
        assertThat(commands).as("one owner at a time keeps nothing").isEmpty();

        CompletableFuture<Void> first = turns.enter("a\nb", channels);
        CompletableFuture<Void> second = turns.enter("a\nb", channels);
        CompletableFuture<Void> third = turns.enter("a\nb", channels);
        assertThat(commands).containsExactly("SUBSCRIBE ca", "SUBSCRIBE cb");
        turns.leave("a\nb", first);
        turns.leave("a\nb", second);
        assertThat(hub.subscriptionCount()).as("kept while an owner is in line").isEqualTo(2);
        turns.leave("a\nb", third);
        assertThat(commands).containsExactly("SUBSCRIBE ca", "SUBSCRIBE cb", "UNSUBSCRIBE ca", "UNSUBSCRIBE cb");
        assertThat(hub.subscriptionCount()).isZero();
    }
}
