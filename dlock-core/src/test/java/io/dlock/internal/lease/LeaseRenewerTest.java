package io.dlock.internal.lease;

import io.dlock.LeaseLostEvent.Reason;
import io.dlock.LeaseLostEvent;
import io.dlock.LockKind;
import io.dlock.internal.ManualScheduler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Renewal bookkeeping: when renewals are sent, what they send, and when a hold counts as lost. No Redis, no sleep. */
class LeaseRenewerTest {
    private static final long WATCHDOG_MS = 30_000;
    private static final long PERIOD_MS = WATCHDOG_MS / 3;

    private final ManualScheduler time = new ManualScheduler();
    private final List<RenewalCall> calls = new CopyOnWriteArrayList<>();
    private final List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
    private final List<Long> roundsAlongside = new CopyOnWriteArrayList<>();
    private HoldTable holds;
    private LeaseRenewer renewer;

    private record RenewalCall(List<Hold> holds, long leaseMs, CompletableFuture<List<Long>> reply) {
        void answer(boolean... alive) {
            List<Long> values = new ArrayList<>();
            for (boolean a : alive) {
                values.add(a ? 1L : 0L);
            }
            reply.complete(values);
        }

        void answerAll(boolean alive) {
            reply.complete(new ArrayList<>(Collections.nCopies(holds.size(), alive ? 1L : 0L)));
        }
    }

    @BeforeEach
    void setUp() {
        holds = new HoldTable(WATCHDOG_MS, time, time::nanoTime, Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), lost::add);
        renewer = new LeaseRenewer(holds, time, key -> 0, () -> roundsAlongside.add(time.nanoTime()));
        renewer.start();
    }

    /** Records each renewal request; the test answers it. */
    private final RenewalSender recording = (holds, leaseMs) -> {
        RenewalCall call = new RenewalCall(holds, leaseMs, new CompletableFuture<>());
        calls.add(call);
        return call.reply();
    };

    private Hold watchdogHold(String key, long owner) {
        return acquire(holds, key, owner, Hold.WATCHDOG);
    }

    /** Starts a release of one acquisition of {@code hold}, as a lock does before it sends one. */
    private static HoldTable.Release releasing(HoldTable on, Hold hold) {
        return on.releasing(new HoldTable.HoldId(hold.key(), hold.field()));
    }

    private Hold acquire(HoldTable on, String key, long owner, long leaseMs) {
        return on.granted(LockKind.PLAIN, key, key, "client:" + owner, owner, leaseMs, time.nanoTime(), recording);
    }

    /**
     * A fixed-lease hold whose lease ran out while the timer is late (a loaded host): looking it up reports it lost at
     * once, and the owner's next acquisition starts a new hold (one acquisition) instead of counting on top of the old
     * one; the late alarm reports nothing more.
     */
    @Test
    void aHoldWhoseLeaseRanOutIsLostWhenLookedUpAndANewAcquisitionStartsAfresh() {
        renewer.close();
        TaskScheduler lateTimer = (task, delay) -> time.schedule(task, delay + 5_000_000_000L);
        HoldTable late = new HoldTable(WATCHDOG_MS, lateTimer, time::nanoTime,
                Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), lost::add);
        new LeaseRenewer(late, lateTimer, key -> 0, () -> { }).start();
        Hold old = acquire(late, "k", 1, 1_000);
        assertThat(late.find(new HoldTable.HoldId("k", "client:1"))).isSameAs(old);
        time.advanceMillis(1_000);
        assertThat(lost).as("not yet reported: the timer is late").isEmpty();

        assertThat(late.find(new HoldTable.HoldId("k", "client:1"))).as("ran out").isNull();
        assertThat(lost).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(Reason.EXPIRED));
        Hold fresh = acquire(late, "k", 1, 1_000);
        assertThat(fresh).isNotSameAs(old);
        assertThat(fresh.acquisitions()).isEqualTo(1);
        assertThat(late.find(new HoldTable.HoldId("k", "client:1"))).isSameAs(fresh);
        time.advanceMillis(7_000);
        assertThat(lost).as("each reported once").hasSize(2);
    }

    /**
     * What the client keeps alive with its holds (its card) goes with each round that sends, in step with the
     * renewals: not in a round with nothing to renew or check, not while a round is still unanswered.
     */
    @Test
    void whatIsKeptWithTheHoldsGoesWithEachRoundThatSendsOnly() {
        time.advanceMillis(3 * PERIOD_MS);
        assertThat(roundsAlongside).as("rounds without holds send nothing").isEmpty();
        watchdogHold("k", 1);
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).hasSize(1);
        assertThat(roundsAlongside).as("with the round's renewal").hasSize(1);
        time.advanceMillis(PERIOD_MS / 3);
        assertThat(roundsAlongside).as("while the renewal is unanswered").hasSize(1);
        calls.get(0).answerAll(true);
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).hasSize(2);
        assertThat(roundsAlongside).hasSize(2);
    }

    /**
     * A fixed lease's loss is reported when its known validity ends (lease from the send, less 1% and 2 ms), to the
     * nanosecond on the manual clock: not a moment before, and not at the next round.
     */
    @Test
    void aFixedLeaseIsReportedLostWhenItsValidityEndsNotAtTheNextRound() {
        Hold hold = acquire(holds, "leased", 1, 1_000);
        long end = hold.validForNanos(time.nanoTime());
        assertThat(end).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1_000 - 12));
        time.advanceMillis(1_000 - 12 - 1);
        assertThat(lost).as("1 ms before its validity ends").isEmpty();
        time.advanceMillis(1);
        assertThat(lost).as("when it ends").singleElement()
                .satisfies(e -> assertThat(e.reason()).isEqualTo(Reason.EXPIRED));
        assertThat(holds.trackedCount()).isZero();
    }

    /**
     * The alarm follows the validity: a longer extension moves the report later, a read-back that finds the TTL
     * shortened moves it sooner, a release in flight holds it off (and a failed release brings it back).
     */
    @Test
    void theEndOfAFixedLeaseFollowsExtensionsReadBacksAndReleases() {
        Hold hold = acquire(holds, "leased", 1, 5_000);
        holds.extended(hold, time.nanoTime(), 20_000);
        time.advanceMillis(6_000);
        assertThat(lost).as("extended to 20 s").isEmpty();

        time.advanceMillis(PERIOD_MS - 6_000);                    // the round reads the TTL back: 1 s left
        long sentAt = time.nanoTime();
        calls.get(0).reply().complete(List.of(1_000L));
        time.advanceMillis(1_000 - 12 - 1);
        assertThat(lost).isEmpty();
        HoldTable.Release release = releasing(holds, hold);
        time.advanceMillis(5);
        assertThat(lost).as("a release is in flight").isEmpty();
        release.failed();
        assertThat(time.nanoTime() - sentAt).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1_000 - 12));
        assertThat(lost).as("ran out while the release was in flight: reported once it failed").singleElement()
                .satisfies(e -> assertThat(e.reason()).isEqualTo(Reason.EXPIRED));
    }

    /**
     * A release's outcomes, through its handle: Redis says the owner holds nothing (forgotten, no loss); the outcome
     * is unknown (the last acquisition forgotten at once; with outer ones left, the watchdog stops renewing and the
     * hold is reported EXPIRED when its validity ends).
     */
    @Test
    void aReleaseIsSettledByItsHandle() {
        Hold notHeld = watchdogHold("n", 1);
        releasing(holds, notHeld).notHeld();
        Hold last = watchdogHold("a", 1);
        releasing(holds, last).outcomeUnknown();
        assertThat(holds.find(new HoldTable.HoldId("n", "client:1"))).isNull();
        assertThat(holds.find(new HoldTable.HoldId("a", "client:1"))).isNull();

        Hold outer = watchdogHold("b", 2);
        acquire(holds, "b", 2, Hold.WATCHDOG);
        releasing(holds, outer).outcomeUnknown();
        assertThat(outer.acquisitions()).isEqualTo(2);
        assertThat(holds.renewedCount()).as("no longer renewed").isZero();
        time.advanceMillis(WATCHDOG_MS - WATCHDOG_MS / 100 - 3);
        assertThat(lost).isEmpty();
        time.advanceMillis(1);
        assertThat(lost).singleElement().satisfies(e -> {
            assertThat(e.lockName()).isEqualTo("b");
            assertThat(e.reason()).isEqualTo(Reason.EXPIRED);
        });
    }

    /** A released fixed-lease hold leaves no alarm behind. */
    @Test
    void aReleasedFixedLeaseHoldLeavesNoAlarm() {
        int before = time.pending();
        Hold hold = acquire(holds, "leased", 1, 60_000);
        assertThat(time.pending()).isEqualTo(before + 1);
        releasing(holds, hold).released(true);
        assertThat(time.pending()).isEqualTo(before);
    }

    @Test
    void renewsWatchdogHoldsOncePerPeriodInOneCall() {
        for (int i = 0; i < LeaseRenewer.BATCH_SIZE; i++) {
            watchdogHold("lock-" + i, 1);
        }
        time.advanceMillis(PERIOD_MS - 1);
        assertThat(calls).isEmpty();

        time.advanceMillis(1);
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0).holds()).hasSize(LeaseRenewer.BATCH_SIZE);
        assertThat(calls.get(0).leaseMs()).isEqualTo(WATCHDOG_MS);
        calls.get(0).answerAll(true);

        time.advanceMillis(PERIOD_MS);
        assertThat(calls).hasSize(2);
        assertThat(lost).isEmpty();
    }

    @Test
    void splitsVeryManyHoldsIntoBatches() {
        for (int i = 0; i < LeaseRenewer.BATCH_SIZE + 1; i++) {
            watchdogHold("lock-" + i, 1);
        }
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).extracting(c -> c.holds().size()).containsExactly(LeaseRenewer.BATCH_SIZE, 1);
    }

    @Test
    void holdsOfDifferentKindsAreRenewedByTheirOwnSenderInTheSameRound() {
        List<List<Hold>> otherCalls = new CopyOnWriteArrayList<>();
        RenewalSender other = (holds, leaseMs) -> {
            otherCalls.add(holds);
            return CompletableFuture.completedFuture(new ArrayList<>(Collections.nCopies(holds.size(), 1L)));
        };
        watchdogHold("plain", 1);
        holds.granted(LockKind.READ, "rw", "rw", "client:1", 1, Hold.WATCHDOG, time.nanoTime(), other);
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).singleElement().satisfies(c -> assertThat(c.holds()).extracting(Hold::key)
                .containsExactly("plain"));
        assertThat(otherCalls).singleElement().satisfies(h -> assertThat(h).extracting(Hold::key)
                .containsExactly("rw"));
    }

    @Test
    void doesNotRenewFixedLeaseHoldsButReadsTheirTtlBack() {
        Hold hold = acquire(holds, "leased", 1, 60_000);
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).singleElement().satisfies(c -> assertThat(c.leaseMs()).as("read only").isZero());
        calls.get(0).reply().complete(List.of(50_000L)); // Redis keeps it as long as the client counts: no change
        assertThat(hold.validForNanos(time.nanoTime())).isGreaterThan(TimeUnit.SECONDS.toNanos(49));
        assertThat(holds.renewedCount()).isZero();
        assertThat(holds.trackedCount()).isEqualTo(1);
    }

    /** Another client shortened a fixed-lease hold's TTL (a PEXPIRE): the next round's read-back caps its validity. */
    @Test
    void aFixedLeaseShortenedInRedisIsCountedNoLongerThanRedisKeepsItFromTheNextRound() {
        Hold hold = acquire(holds, "leased", 1, 60_000);
        time.advanceMillis(PERIOD_MS);
        long sentAt = time.nanoTime();
        time.advanceMillis(5);
        calls.get(0).reply().complete(List.of(2_000L));
        assertThat(hold.validForNanos(time.nanoTime())).as("2 s from the check's send, minus the margin")
                .isEqualTo(sentAt + TimeUnit.MILLISECONDS.toNanos(2_000 - 22) - time.nanoTime());
        time.advanceMillis(PERIOD_MS);
        assertThat(lost).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(Reason.EXPIRED));
    }

    /** Another client removed a fixed-lease hold (a forceUnlock): the next round's read-back finds it gone. */
    @Test
    void aFixedLeaseHoldGoneFromRedisIsReportedRemovedByTheNextRound() {
        acquire(holds, "leased", 1, 60_000);
        time.advanceMillis(PERIOD_MS);
        calls.get(0).answer(false);
        assertThat(lost).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(Reason.REMOVED));
        assertThat(holds.trackedCount()).isZero();
    }

    @Test
    void holdFoundGoneIsReportedRemovedOnceAndNoLongerRenewed() {
        Hold hold = watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        calls.get(0).answer(false);

        assertThat(lost).singleElement().satisfies(e -> {
            assertThat(e.lockName()).isEqualTo("a");
            assertThat(e.ownerId()).isEqualTo(7);
            assertThat(e.reason()).isEqualTo(Reason.REMOVED);
        });
        assertThat(holds.find(new HoldTable.HoldId("a", hold.field()))).isNull();
        time.advanceMillis(PERIOD_MS * 3);
        assertThat(calls).hasSize(1);
        assertThat(lost).hasSize(1);
    }

    @Test
    void holdGoneWhileItsReleaseIsInFlightIsNoLoss() {
        Hold hold = watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        HoldTable.Release release = releasing(holds, hold);
        calls.get(0).answer(false);
        release.released(true);

        assertThat(lost).isEmpty();
        assertThat(holds.trackedCount()).isZero();
    }

    @Test
    void lateAnswerAboutAnOldHoldDoesNotTouchTheNewOne() {
        Hold first = watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        releasing(holds, first).released(true);
        Hold second = watchdogHold("a", 7);
        calls.get(0).answer(false);

        assertThat(second).isNotSameAs(first);
        assertThat(lost).isEmpty();
        assertThat(holds.find(new HoldTable.HoldId("a", second.field()))).isSameAs(second);
    }

    @Test
    void failingRenewalsAreRetriedSoonerAndReportedWhenTheLeaseRunsOut() {
        Hold hold = watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        calls.get(0).reply().completeExceptionally(new RuntimeException("connection refused"));
        assertThat(lost).isEmpty();

        time.advanceMillis(PERIOD_MS / 3 + 1);
        assertThat(calls).hasSize(2);
        long validBefore = hold.validForNanos(time.nanoTime());
        assertThat(validBefore).isPositive();

        // Keep failing until the 30 s lease (counted from acquisition) has run out.
        while (time.nanoTime() < 1_000_000_000L + WATCHDOG_MS * 1_000_000L && lost.isEmpty()) {
            calls.get(calls.size() - 1).reply().completeExceptionally(new RuntimeException("still down"));
            time.advanceMillis(PERIOD_MS / 3 + 1);
        }
        time.advanceMillis(PERIOD_MS / 3 + 1);
        assertThat(lost).singleElement().extracting(LeaseLostEvent::reason).isEqualTo(Reason.RENEWAL_FAILED);
        assertThat(hold.validForNanos(time.nanoTime())).isLessThanOrEqualTo(0);
        assertThat(holds.renewedCount()).isZero();
    }

    @Test
    void hangingRenewalDoesNotDelayTheReportOfALeaseThatRanOut() {
        watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).hasSize(1);
        // The reply never comes (Redis paused, command timeout longer than the lease).
        time.advanceMillis(WATCHDOG_MS - PERIOD_MS - 1);
        assertThat(lost).isEmpty();
        assertThat(calls).as("no second request while one is in flight").hasSize(1);
        time.advanceMillis(PERIOD_MS / 3 + 2);
        assertThat(lost).singleElement().extracting(LeaseLostEvent::reason).isEqualTo(Reason.RENEWAL_FAILED);
    }

    @Test
    void successfulRenewalExtendsValidityFromWhenItWasSent() {
        Hold hold = watchdogHold("a", 7);
        time.advanceMillis(PERIOD_MS);
        long sentAt = time.nanoTime();
        time.advanceMillis(5);
        calls.get(0).answer(true);
        long expected = sentAt + WATCHDOG_MS * 1_000_000L - time.nanoTime();
        assertThat(hold.validForNanos(time.nanoTime()))
                .isLessThan(expected)
                .isGreaterThan(expected - (WATCHDOG_MS / 100 + 3) * 1_000_000L);
    }

    @Test
    void fixedLeaseHoldThatRunsOutIsReportedExpired() {
        acquire(holds, "leased", 3, 2_000);
        time.advanceMillis(2_000);
        assertThat(lost).singleElement().satisfies(e -> {
            assertThat(e.reason()).isEqualTo(Reason.EXPIRED);
            assertThat(e.ownerId()).isEqualTo(3);
        });
        assertThat(holds.trackedCount()).isZero();
    }

    @Test
    void releasedFixedLeaseHoldIsNotReported() {
        Hold hold = acquire(holds, "leased", 3, 2_000);
        releasing(holds, hold).released(true);
        time.advanceMillis(PERIOD_MS * 2);
        assertThat(lost).isEmpty();
    }

    @Test
    void reentryKeepsOneHoldAndPartialReleaseKeepsTheWatchdogWhileAnyAcquisitionUsesIt() {
        Hold hold = watchdogHold("a", 7);
        Hold again = acquire(holds, "a", 7, 5_000);
        assertThat(again).isSameAs(hold);
        // Releasing the inner 5 s acquisition leaves the watchdog one: TTL back to the watchdog lease.
        assertThat(hold.leaseAfterPartialRelease(WATCHDOG_MS)).isEqualTo(WATCHDOG_MS);
        releasing(holds, hold).released(false);
        assertThat(holds.renewedCount()).isEqualTo(1);

        Hold leased = acquire(holds, "b", 7, 5_000);
        acquire(holds, "b", 7, 9_000);
        assertThat(leased.leaseAfterPartialRelease(WATCHDOG_MS)).isEqualTo(5_000);
    }

    @Test
    void pausedClientPastItsLeaseReportsExpiredWithoutRenewing() {
        watchdogHold("a", 7);
        // The timer could not run for longer than the lease (GC pause, SIGSTOP): the first tick comes too late.
        renewer.close();
        lost.clear(); // the closed renewer reported its live hold (closeStopsTheTimerAndReportsLiveHolds)
        HoldTable lateHolds = new HoldTable(WATCHDOG_MS, time, time::nanoTime, Clock.systemUTC(), lost::add);
        LeaseRenewer late = new LeaseRenewer(lateHolds, time, key -> 0, () -> { });
        lateHolds.granted(LockKind.PLAIN, "b", "b", "client:8", 8, Hold.WATCHDOG, time.nanoTime(), (batch, leaseMs) -> {
            throw new AssertionError("must not renew a hold whose lease ran out");
        });
        time.advanceMillis(WATCHDOG_MS + 1);
        late.tick();
        assertThat(lost).singleElement().extracting(LeaseLostEvent::reason).isEqualTo(Reason.EXPIRED);
    }

    @Test
    void closeStopsTheTimerAndReportsLiveHolds() {
        Hold live = watchdogHold("a", 7);
        Hold released = watchdogHold("b", 8);
        releasing(holds, released).released(true);
        renewer.close();
        assertThat(lost).as("the live hold: nothing renews it any more").singleElement().satisfies(e -> {
            assertThat(e.lockName()).isEqualTo("a");
            assertThat(e.reason()).isEqualTo(Reason.RENEWAL_FAILED);
        });
        assertThat(live.validForNanos(time.nanoTime())).isLessThanOrEqualTo(0);
        assertThat(holds.find(new HoldTable.HoldId("a", "client:7"))).isNull();
        time.advanceMillis(PERIOD_MS * 3);
        assertThat(calls).isEmpty();
        assertThat(time.pending()).isZero();
        assertThat(lost).as("reported once").hasSize(1);
    }

    @Test
    void onAClusterOneRenewalCallCarriesHoldsOfOneSlotOnly() {
        HoldTable clusteredHolds = new HoldTable(WATCHDOG_MS, time, time::nanoTime,
                Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), lost::add);
        LeaseRenewer clustered = new LeaseRenewer(clusteredHolds, time, key -> Math.floorMod(key.hashCode(), 3),
                () -> { });
        clustered.start();
        for (int i = 0; i < 30; i++) {
            acquire(clusteredHolds, "lock-" + i, 1, Hold.WATCHDOG);
        }
        time.advanceMillis(PERIOD_MS);
        assertThat(calls).hasSize(3);
        for (RenewalCall call : calls) {
            assertThat(call.holds()).extracting(h -> Math.floorMod(h.key().hashCode(), 3)).as("slots of one call")
                    .containsOnly(Math.floorMod(call.holds().get(0).key().hashCode(), 3));
            call.answerAll(true);
        }
        assertThat(calls.stream().mapToInt(c -> c.holds().size()).sum()).isEqualTo(30);
        clustered.close();
    }
}
