package io.dlock.internal.lease;

import io.dlock.LockKind;
import io.dlock.internal.ManualScheduler;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.HoldTable.Mark;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client's hold table as plain in-memory state: what the scripts are told (known count, current lease, count
 * after a release), the lost-reply books and the marks, and that entries vanish when nothing is known. No Redis; time
 * is {@link ManualScheduler}'s and holds are real records.
 */
class HoldTableTest {
    private static final long WATCHDOG_MS = 30_000;
    private static final HoldId ID = new HoldId("orders", "client:1");

    private final ManualScheduler time = new ManualScheduler();
    private final HoldTable table = new HoldTable(WATCHDOG_MS, time, time::nanoTime,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), event -> { });
    private final RenewalSender renewal = (holds, leaseMs) ->
            CompletableFuture.completedFuture(new ArrayList<>(Collections.nCopies(holds.size(), 1L)));

    private Hold grant(long leaseMs) {
        return table.granted(LockKind.PLAIN, "orders", ID.key(), ID.field(), 1, leaseMs, time.nanoTime(), renewal);
    }

    @Test
    void anUnknownHoldHasNoCountTheWatchdogLeaseAndNoCountAfterRelease() {
        assertThat(table.knownCount(ID)).isZero();
        assertThat(table.currentLease(ID)).isEqualTo(WATCHDOG_MS);
        assertThat(table.countAfterRelease(ID, null)).isEqualTo(OptionalLong.empty());
        assertThat(table.size()).isZero();
    }

    @Test
    void theKnownCountIsTheAcquisitionsPlusAttemptsAwaitingTheirReply() {
        Hold hold = grant(Hold.WATCHDOG);
        grant(5_000);
        table.attemptStarted(ID);
        assertThat(table.knownCount(ID)).isEqualTo(3);
        assertThat(table.currentLease(ID)).as("a watchdog acquisition keeps the watchdog lease").isEqualTo(WATCHDOG_MS);
        assertThat(table.countAfterRelease(ID, hold)).isEqualTo(OptionalLong.of(3));

        table.releasing(ID);
        assertThat(table.countAfterRelease(ID, hold)).as("a release in flight counts as done")
                .isEqualTo(OptionalLong.of(2));
        table.attemptEnded(ID, true);
        assertThat(table.knownCount(ID)).isEqualTo(2);
    }

    @Test
    void anAttemptInFlightWithoutAHoldStillCountsAfterARelease() {
        table.attemptStarted(ID);
        assertThat(table.countAfterRelease(ID, null)).isEqualTo(OptionalLong.of(1));
        table.attemptEnded(ID, true);
        assertThat(table.size()).as("nothing left to know").isZero();
    }

    @Test
    void anAttemptWithoutAnswerStaysUnansweredUntilSettledOrAnsweredLater() {
        table.attemptStarted(ID);
        table.attemptEnded(ID, false);
        assertThat(table.unanswered(ID)).isTrue();
        assertThat(table.inFlight(ID)).isZero();
        table.attemptStarted(ID);
        table.attemptEnded(ID, true);
        assertThat(table.unanswered(ID)).as("a later answer adopted what the lost one left").isFalse();

        table.mayHaveRun(ID);
        assertThat(table.unanswered(ID)).isTrue();
        table.settled(ID);
        assertThat(table.unanswered(ID)).isFalse();
        assertThat(table.size()).isZero();
    }

    @Test
    void marksAreKeptPerHoldUntilRemovedOnce() {
        table.mark(ID, Mark.FAIR_QUEUE_PLACE);
        assertThat(table.unmark(ID, Mark.WRITER_MARK)).isFalse();
        assertThat(table.unmark(ID, Mark.FAIR_QUEUE_PLACE)).isTrue();
        assertThat(table.unmark(ID, Mark.FAIR_QUEUE_PLACE)).as("removed once").isFalse();
        assertThat(table.size()).isZero();
    }

    @Test
    void aHoldThatRanOutCountsAsNone() {
        grant(1_000);
        assertThat(table.knownCount(ID)).isEqualTo(1);
        assertThat(table.currentLease(ID)).isEqualTo(1_000);
        time.advanceMillis(1_000);
        assertThat(table.knownCount(ID)).isZero();
        assertThat(table.currentLease(ID)).isEqualTo(WATCHDOG_MS);
    }

    @Test
    void theHoldRecordAndTheBooksShareOneEntry() {
        Hold hold = grant(Hold.WATCHDOG);
        table.mark(ID, Mark.WRITER_MARK);
        assertThat(table.size()).isEqualTo(1);
        table.discard(hold);
        assertThat(table.find(new HoldTable.HoldId(ID.key(), ID.field()))).isNull();
        assertThat(table.size()).as("the mark is still known").isEqualTo(1);
        table.unmark(ID, Mark.WRITER_MARK);
        assertThat(table.size()).isZero();
    }

    @Test
    void anAcquisitionStartsAtOnceWhenNoCleanupIsPending() {
        java.util.List<String> started = new ArrayList<>();
        table.trackCleanup(ID, CompletableFuture.completedFuture(null));
        table.runAfterCleanups(() -> ID, () -> started.add("now"));
        assertThat(started).containsExactly("now");
        assertThat(table.size()).as("a finished cleanup leaves no entry").isZero();
    }

    @Test
    void anAcquisitionStartsAfterEveryPendingCleanupOfTheSameHoldOnly() {
        java.util.List<String> started = new ArrayList<>();
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();
        table.trackCleanup(ID, first);
        table.trackCleanup(ID, second);

        table.runAfterCleanups(() -> new HoldId("orders", "client:2"), () -> started.add("other owner"));
        table.runAfterCleanups(() -> new HoldId("other", ID.field()), () -> started.add("other lock"));
        table.runAfterCleanups(() -> ID, () -> started.add("same owner"));
        assertThat(started).containsExactly("other owner", "other lock");

        second.complete(null);
        assertThat(started).doesNotContain("same owner");
        first.completeExceptionally(new IllegalStateException("a failed cleanup counts as done"));
        assertThat(started).containsExactly("other owner", "other lock", "same owner");
        assertThat(table.size()).as("the entry goes with its last cleanup").isZero();

        table.runAfterCleanups(() -> ID, () -> started.add("later"));
        assertThat(started).last().isEqualTo("later");
    }

    @Test
    void aHoldIdIsNotComputedWhileNoCleanupIsPendingAnywhere() {
        table.runAfterCleanups(() -> {
            throw new AssertionError("the id was computed although nothing was pending");
        }, () -> { });
    }
}
