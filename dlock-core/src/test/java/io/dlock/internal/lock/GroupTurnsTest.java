package io.dlock.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class GroupTurnsTest {
    private final GroupTurns turns = new GroupTurns();

    @Test
    void theFirstHasItsTurnAtOnceAndEachLeavingHeadHandsItToTheNext() {
        CompletableFuture<Void> first = turns.enter("a\nb");
        CompletableFuture<Void> second = turns.enter("a\nb");
        CompletableFuture<Void> third = turns.enter("a\nb");
        CompletableFuture<Void> otherLine = turns.enter("a\nc");
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
        assertThat(turns.enter("a\nb")).as("an empty line starts over").isDone();
    }
}
