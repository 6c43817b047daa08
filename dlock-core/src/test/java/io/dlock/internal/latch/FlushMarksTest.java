package io.dlock.internal.latch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which members a heard "0" releases: only those a flush point sent after their join, and answered, witnessed. */
class FlushMarksTest {
    private final FlushMarks<String> marks = new FlushMarks<>();

    @Test
    void nobodyIsWitnessedBeforeAFlushPointIsAnswered() {
        marks.join("a");
        assertThat(marks.isDue()).isTrue();
        assertThat(marks.witnessed()).isEmpty();
        long first = marks.sending();
        assertThat(marks.isDue()).isFalse();
        assertThat(marks.witnessed()).as("sent, not answered: a \"0\" now may predate it").isEmpty();
        marks.confirmed(first);
        assertThat(marks.witnessed()).containsExactly("a");
    }

    @Test
    void aFlushPointSentBeforeAMemberJoinedNeverWitnessesIt() {
        marks.join("a");
        long first = marks.sending();
        marks.join("b"); // after flush point 1 was sent: a "0" after its answer may have been published before b joined
        assertThat(marks.isDue()).isTrue();
        marks.confirmed(first);
        assertThat(marks.witnessed()).containsExactly("a");
        long second = marks.sending();
        marks.confirmed(second);
        assertThat(marks.witnessed()).containsExactly("a", "b");
    }

    @Test
    void answersOutOfOrderNeverMoveTheConfirmedPointBack() {
        marks.join("a");
        long first = marks.sending();
        marks.join("b");
        long second = marks.sending();
        marks.confirmed(second);
        marks.confirmed(first);
        assertThat(marks.witnessed()).containsExactly("a", "b");
    }

    @Test
    void aMemberThatLeftIsNeitherWitnessedNorDue() {
        marks.join("a");
        marks.leave("a");
        assertThat(marks.isDue()).isFalse();
        marks.confirmed(marks.sending());
        assertThat(marks.witnessed()).isEmpty();
    }

    @Test
    void joiningTwiceKeepsTheFirstMark() {
        marks.join("a");
        long first = marks.sending();
        marks.join("a");
        assertThat(marks.isDue()).isFalse();
        marks.confirmed(first);
        assertThat(marks.witnessed()).containsExactly("a");
    }
}
