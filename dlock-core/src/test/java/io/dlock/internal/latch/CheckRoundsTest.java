package io.dlock.internal.latch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which members a shared check answers for, and when another check is due (the group's bookkeeping alone). */
class CheckRoundsTest {
    private final CheckRounds<String> rounds = new CheckRounds<>();

    @Test
    void theFirstJoinSendsACheckThatAnswersForIt() {
        rounds.join("a");
        assertThat(rounds.request()).isEqualTo(1);
        assertThat(rounds.isInFlight()).isTrue();
        assertThat(rounds.answered(1)).containsExactly("a");
        assertThat(rounds.isInFlight()).isFalse();
        assertThat(rounds.isDue()).isFalse();
    }

    @Test
    void aJoinerDoesNotRideACheckSentBeforeItJoinedButMakesTheNextDue() {
        rounds.join("a");
        long first = rounds.request();
        rounds.join("b"); // while check 1 is on its way: it may have run before b's await began
        assertThat(rounds.request()).as("one check in flight at a time").isZero();
        assertThat(rounds.isDue()).isTrue();
        assertThat(rounds.answered(first)).containsExactly("a");
        long second = rounds.request();
        assertThat(second).isEqualTo(2);
        assertThat(rounds.isDue()).as("the due check is the one just sent").isFalse();
        assertThat(rounds.answered(second)).containsExactly("a", "b");
    }

    @Test
    void everyJoinAndEventDuringOneFlightSharesOneFurtherCheck() {
        rounds.join("a");
        long first = rounds.request();
        for (int i = 0; i < 100; i++) {
            rounds.join("m" + i);
            assertThat(rounds.request()).isZero();
        }
        assertThat(rounds.request()).as("a message meanwhile").isZero();
        assertThat(rounds.answered(first)).containsExactly("a");
        long second = rounds.request();
        assertThat(rounds.answered(second)).hasSize(101);
        assertThat(rounds.isDue()).isFalse();
    }

    @Test
    void membersLeaveAndAJoinedMemberKeepsItsFirstJoin() {
        rounds.join("a");
        long first = rounds.request();
        rounds.join("a");
        rounds.join("b");
        rounds.leave("b");
        assertThat(rounds.answered(first)).containsExactly("a");
        assertThat(rounds.members()).containsExactly("a");
        rounds.leave("a");
        assertThat(rounds.isEmpty()).isTrue();
    }

    @Test
    void onlyTheCheckInFlightCanBeAnswered() {
        assertThatThrownBy(() -> rounds.answered(1)).isInstanceOf(IllegalStateException.class);
        rounds.join("a");
        long first = rounds.request();
        rounds.answered(first);
        long second = rounds.request();
        assertThatThrownBy(() -> rounds.answered(first)).isInstanceOf(IllegalStateException.class);
        assertThat(rounds.answered(second)).containsExactly("a");
    }
}
