package io.dlock.internal.semaphore;

import io.dlock.internal.ManualScheduler;
import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.LocalTurn.Turn;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client knows of its own callers on one semaphore ({@link LocalPermits}, {@link LocalPermitLines}): who
 * may wait in line for a release of this client, who gets released permits and in which order, how many releases in a
 * row are handed on, and what sends a waiter back to Redis. No Redis, no sleep: time is {@link ManualScheduler}'s.
 */
class LocalPermitsTest {
    private static final String CHANNEL = "redisson_sc:{orders}";
    private static final long RECHECK_MS = 1_000;
    private static final long MS = 1_000_000L;
    private static final long FOREVER = Long.MAX_VALUE;
    private static final long HEAD_START_MS = 10;

    private final ManualScheduler time = new ManualScheduler();
    private final AtomicInteger handed = new AtomicInteger();

    private LocalPermitLines lines(int maxHandoffs) {
        return new LocalPermitLines(time, time::nanoTime, RECHECK_MS * MS, maxHandoffs, HEAD_START_MS * MS);
    }

    /**
     * A line capped after one hand-off, whose client got its permit from Redis a tenure ago, with two waiters:
     * the first is handed the permit, and the next release goes to Redis capped, {@code second} still in line.
     *
     * @return the capped release's reservation, not yet told of its answer
     */
    private LocalPermits.Reservation cappedAfterTheTenure(LocalPermitLines lines, LocalPermits.Waiter[] waiters) {
        lines.granted(CHANNEL, 1); // the tenure starts
        waiters[0] = refusedThenQueued(lines, 1);
        waiters[1] = refusedThenQueued(lines, 1);
        time.advanceMillis(HEAD_START_MS * HeadStart.TENURE_IN_HEAD_STARTS);
        assertThat(release(lines, 1)).isZero();
        LocalPermits.Reservation capped = lines.reserve(CHANNEL, 1);
        assertThat(capped.served()).isEmpty();
        assertThat(capped.capped()).isTrue();
        return capped;
    }

    /** An acquisition refused in Redis with no message since its attempt: it queues, as its gate would put it. */
    private LocalPermits.Waiter refusedThenQueued(LocalPermitLines lines, int permits) {
        LocalPermitLines.Mark mark = lines.mark(CHANNEL);
        return mark.permits().queue(permits, mark.messages(), FOREVER, null, handed::incrementAndGet);
    }

    /** A release whose call Redis answered: the reserved waiters get their permits. */
    private static int release(LocalPermitLines lines, int permits) {
        LocalPermits.Reservation reservation = lines.reserve(CHANNEL, permits);
        reservation.handOver();
        return reservation.left();
    }

    @Test
    void aReleaseWhoseCallFailedSendsItsReservedWaitersToRedisAndNothingElseEndsThemMeanwhile() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermits.Waiter waiter = refusedThenQueued(lines, 1);
        LocalPermits.Reservation reservation = lines.reserve(CHANNEL, 1);
        assertThat(reservation.served()).containsExactly(waiter);
        lines.find(CHANNEL).sendToRedis(waiter); // its caller leaves: reserved, it waits for the call's outcome
        lines.message(CHANNEL, "1");
        time.advanceMillis(2 * RECHECK_MS);
        assertThat(waiter.turn()).isNotDone();
        reservation.fail();
        assertThat(waiter.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(handed).hasValue(0);
        assertThat(reservation.permits()).as("what the release now sends to Redis").isEqualTo(1);
        assertThat(lines.find(CHANNEL).held()).as("released to Redis: nobody here holds it").isZero();
    }

    @Test
    void aLeasedWaiterKeepsItsTicketForTheReleaseThatServesIt() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 2);
        LocalPermitLines.Mark mark = lines.mark(CHANNEL);
        PermitTicket first = new PermitTicket(PermitIds.fresh(), 3_000);
        PermitTicket second = new PermitTicket(PermitIds.fresh(), 5_000);
        LocalPermits.Waiter a = mark.permits().queue(1, mark.messages(), FOREVER, first, handed::incrementAndGet);
        LocalPermits.Waiter b = mark.permits().queue(1, null, FOREVER, second, handed::incrementAndGet);
        LocalPermits.Reservation reservation = lines.reserve(CHANNEL, 1);
        assertThat(reservation.served()).as("one permit released serves one waiter").containsExactly(a);
        assertThat(reservation.served().get(0).ticket).isSameAs(first);
        reservation.handOver();
        assertThat(a.turn()).isCompletedWithValue(Turn.HANDED_OVER);
        assertThat(b.turn()).isNotDone();
        assertThat(lines.reserve(CHANNEL, 1).served().get(0).ticket).isSameAs(second);
    }

    @Test
    void aRefusedAcquisitionWaitsInLineOnlyWhileThisClientHoldsEnoughPermits() {
        LocalPermitLines lines = lines(8);
        assertThat(refusedThenQueued(lines, 1)).as("nobody here holds a permit: a release may never come").isNull();
        lines.granted(CHANNEL, 1);
        assertThat(refusedThenQueued(lines, 2)).as("one permit held here cannot serve two").isNull();
        assertThat(refusedThenQueued(lines, 1)).isNotNull();
    }

    @Test
    void aMessageSinceTheAttemptWasSentKeepsItOutOfLine() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermitLines.Mark mark = lines.mark(CHANNEL);
        lines.message(CHANNEL, "1"); // permits went back to Redis while the attempt was on its way
        assertThat(mark.permits().queue(1, mark.messages(), FOREVER, null, () -> { })).isNull();
    }

    @Test
    void aNewcomerJoinsALineWithoutAttemptingButNeverStartsOne() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermits line = lines.find(CHANNEL);
        assertThat(line.queue(1, null, FOREVER, null, () -> { })).as("empty line: ask Redis first").isNull();
        assertThat(refusedThenQueued(lines, 1)).isNotNull();
        assertThat(line.queue(1, null, FOREVER, null, () -> { })).as("behind a refused waiter").isNotNull();
        assertThat(line.waiterCount()).isEqualTo(2);
    }

    @Test
    void aReleaseServesTheHeadFirstAndGivesWhatIsLeftToRedis() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 3);
        LocalPermits.Waiter first = refusedThenQueued(lines, 2);
        LocalPermits.Waiter second = refusedThenQueued(lines, 1);

        assertThat(release(lines, 1)).as("the head wants two: one goes to Redis").isEqualTo(1);
        assertThat(first.turn()).isNotDone();
        assertThat(release(lines, 3)).as("two to the head, one to the next, none left").isZero();
        assertThat(first.turn()).isCompletedWithValue(Turn.HANDED_OVER);
        assertThat(second.turn()).isCompletedWithValue(Turn.HANDED_OVER);
        assertThat(handed).hasValue(2);
        assertThat(lines.find(CHANNEL).held()).as("2 + 1 held by the receivers").isEqualTo(3);
    }

    @Test
    void atMostMaxHandoffsReleasesInARowAreHandedOnThenOneGoesThroughRedis() {
        LocalPermitLines lines = lines(2);
        lines.granted(CHANNEL, 1);
        for (int i = 0; i < 2; i++) {
            LocalPermits.Waiter waiter = refusedThenQueued(lines, 1);
            assertThat(release(lines, 1)).isZero();
            assertThat(waiter.turn()).isCompletedWithValue(Turn.HANDED_OVER);
        }
        LocalPermits.Waiter third = refusedThenQueued(lines, 1);
        assertThat(release(lines, 1)).as("the third in a row goes to Redis").isEqualTo(1);
        assertThat(third.turn()).isNotDone();
        lines.message(CHANNEL, "1"); // that release's message
        assertThat(third.turn()).as("it asks Redis for the permit").isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        lines.granted(CHANNEL, 1);
        LocalPermits.Waiter fourth = refusedThenQueued(lines, 1);
        assertThat(release(lines, 1)).as("the streak starts again").isZero();
        assertThat(fourth.turn()).isCompletedWithValue(Turn.HANDED_OVER);
    }

    @Test
    void handOffsAreOffWithACapOfZero() {
        LocalPermitLines lines = lines(0);
        lines.granted(CHANNEL, 1);
        assertThat(lines.mark(CHANNEL)).isNull();
        assertThat(lines.find(CHANNEL)).isNull();
        assertThat(release(lines, 1)).isEqualTo(1);
    }

    @Test
    void aMessageSendsAsManyWaitersAsItNamesFromTheHead() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 2);
        LocalPermits.Waiter first = refusedThenQueued(lines, 1);
        LocalPermits.Waiter second = refusedThenQueued(lines, 1);
        LocalPermits.Waiter third = refusedThenQueued(lines, 1);
        lines.message(CHANNEL, "2");
        assertThat(first.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(second.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(third.turn()).isNotDone();
        lines.message(CHANNEL, "not a count"); // wakes nobody, as the hub reads it
        assertThat(third.turn()).isNotDone();
        lines.resubscribed();
        assertThat(third.turn()).as("messages may have been lost: everyone asks").isCompletedWithValue(
                Turn.ATTEMPT_IN_REDIS);
    }

    @Test
    void aWaiterAsksRedisAgainAtItsDeadlineAndAtTheRecheck() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermitLines.Mark mark = lines.mark(CHANNEL);
        LocalPermits.Waiter timed = mark.permits().queue(1, mark.messages(), 50 * MS, null, () -> { });
        LocalPermits.Waiter patient = refusedThenQueued(lines, 1);
        time.advanceMillis(50);
        assertThat(timed.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(patient.turn()).isNotDone();
        time.advanceMillis(RECHECK_MS);
        assertThat(patient.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
    }

    @Test
    void aWaiterLeavesExactlyOnceWhicheverComesFirst() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermits line = lines.find(CHANNEL);
        LocalPermits.Waiter waiter = refusedThenQueued(lines, 1);
        assertThat(release(lines, 1)).isZero();
        line.sendToRedis(waiter); // its caller leaves just after the hand-off took it: the permit stays its own
        lines.message(CHANNEL, "1");
        time.advanceMillis(2 * RECHECK_MS);
        assertThat(waiter.turn()).isCompletedWithValue(Turn.HANDED_OVER);
        assertThat(handed).hasValue(1);
    }

    @Test
    void anUnusedTurnGoesToTheNextWaiter() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermits.Waiter first = refusedThenQueued(lines, 1);
        LocalPermits.Waiter second = refusedThenQueued(lines, 1);
        lines.find(CHANNEL).passOn();
        assertThat(first.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(second.turn()).isNotDone();
    }

    @Test
    void anIdleLineRetiresOnlyAfterTheRecheckIntervalUnused() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 1);
        LocalPermits line = lines.find(CHANNEL);
        assertThat(release(lines, 1)).isEqualTo(1);
        assertThat(lines.find(CHANNEL)).as("just used: an attempt's note may still point at it").isSameAs(line);
        time.advanceMillis(RECHECK_MS);
        assertThat(lines.find(CHANNEL)).isNull();
        assertThat(line.retired()).isTrue();
        lines.granted(CHANNEL, 1);
        assertThat(lines.find(CHANNEL)).as("a fresh one").isNotSameAs(line).isNotNull();
        assertThat(lines.find(CHANNEL).held()).isEqualTo(1);
    }

    @Test
    void aGrantGivenBackIsNoLongerHeld() {
        LocalPermitLines lines = lines(8);
        lines.granted(CHANNEL, 2);
        lines.forget(CHANNEL, 2);
        assertThat(refusedThenQueued(lines, 1)).isNull();
    }

    @Test
    void aCappedReleaseThatWokeOtherClientsHoldsTheLineBackUntilAnotherClientReleases() {
        LocalPermitLines lines = lines(1);
        LocalPermits.Waiter[] waiters = new LocalPermits.Waiter[2];
        LocalPermits.Reservation capped = cappedAfterTheTenure(lines, waiters);
        capped.releasedInRedis(2, 1); // its message reached this client and one other
        lines.message(CHANNEL, "1"); // this release's own message
        assertThat(waiters[1].turn()).as("the other client's waiter has its head start").isNotDone();
        LocalPermits line = lines.find(CHANNEL);
        LocalPermits.Waiter newcomer = line.queue(1, null, FOREVER, null, () -> { });
        assertThat(newcomer).as("a newcomer waits too, though nobody here holds a permit").isNotNull();
        lines.message(CHANNEL, "1"); // the other client released: the head start is over
        assertThat(waiters[1].turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(newcomer.turn()).as("one permit announced: one waiter sent").isNotDone();
        assertThat(line.queue(1, null, FOREVER, null, () -> { })).as("back to the usual rule").isNull();
    }

    @Test
    void aHeadStartNobodyTookEndsAfterItsLengthAndSendsAsManyWaitersAsTheLastMessageAnnounced() {
        LocalPermitLines lines = lines(1);
        LocalPermits.Waiter[] waiters = new LocalPermits.Waiter[2];
        LocalPermits.Reservation capped = cappedAfterTheTenure(lines, waiters);
        capped.releasedInRedis(2, 1);
        LocalPermits.Waiter third = lines.find(CHANNEL).queue(1, null, FOREVER, null, () -> { });
        lines.message(CHANNEL, "2"); // the own message: two permits in Redis
        time.advanceMillis(HEAD_START_MS - 1);
        assertThat(waiters[1].turn()).isNotDone();
        time.advanceMillis(1);
        assertThat(waiters[1].turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(third.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
    }

    @Test
    void noHeadStartWhenTheMessageReachedOnlyThisClientOrWithinTheTenure() {
        LocalPermitLines lines = lines(1);
        LocalPermits.Waiter[] waiters = new LocalPermits.Waiter[2];
        cappedAfterTheTenure(lines, waiters).releasedInRedis(1, 1);
        lines.message(CHANNEL, "1");
        assertThat(waiters[1].turn()).as("nobody else listens").isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);

        LocalPermitLines fresh = lines(1);
        fresh.granted(CHANNEL, 1);
        refusedThenQueued(fresh, 1);
        LocalPermits.Waiter second = refusedThenQueued(fresh, 1);
        assertThat(release(fresh, 1)).isZero();
        LocalPermits.Reservation early = fresh.reserve(CHANNEL, 1);
        early.releasedInRedis(2, 1);
        fresh.message(CHANNEL, "1");
        assertThat(second.turn()).as("within its tenure the client does not give way").isCompletedWithValue(
                Turn.ATTEMPT_IN_REDIS);
    }

    @Test
    void aResubscriptionEndsAHeadStartAndSendsEveryWaiter() {
        LocalPermitLines lines = lines(1);
        LocalPermits.Waiter[] waiters = new LocalPermits.Waiter[2];
        cappedAfterTheTenure(lines, waiters).releasedInRedis(2, 1);
        LocalPermits.Waiter third = lines.find(CHANNEL).queue(1, null, FOREVER, null, () -> { });
        lines.resubscribed();
        assertThat(waiters[1].turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(third.turn()).isCompletedWithValue(Turn.ATTEMPT_IN_REDIS);
        assertThat(lines.find(CHANNEL).queue(1, null, FOREVER, null, () -> { })).isNull();
    }
}
