package io.dlock.internal.lock;

import io.dlock.LockKind;
import io.dlock.internal.ManualScheduler;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.AcquireSteps;
import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.LocalTurn;
import io.dlock.internal.acquire.LoopWaiting;
import io.dlock.internal.acquire.Outage;
import io.dlock.internal.acquire.WakeMode;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.wakeup.PubSubPort;
import io.dlock.internal.wakeup.WakeupHub;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client knows of its own owners on one lock ({@link LocalCohort}, {@link LocalCohorts}): who waits behind a
 * local holder, who gets the lock on a hand-off and in which order, how many hand-offs in a row, and how long a waiter
 * trusts the holder before it asks Redis. No Redis, no sleep: time is {@link ManualScheduler}'s, holds are the
 * hold table's real {@link Hold}s.
 */
class LocalCohortTest {
    private static final String NAME = "orders";
    private static final long WATCHDOG_MS = 30_000;
    private static final long RECHECK_MS = 1_000;
    private static final long HEAD_START_MS = 10;
    /** A head start that only its timer ends. */
    private static final long NO_EARLY_END = Long.MAX_VALUE;
    private static final long FOREVER = Long.MAX_VALUE;
    private static final long MS = 1_000_000L;

    private final ManualScheduler time = new ManualScheduler();
    private final HoldTable holds = new HoldTable(WATCHDOG_MS, time, time::nanoTime,
            Clock.fixed(Instant.EPOCH, ZoneOffset.UTC), event -> { });
    /** Never called: no renewer runs. */
    private final RenewalSender renewal = (holds, leaseMs) ->
            CompletableFuture.completedFuture(new ArrayList<>(Collections.nCopies(holds.size(), 1L)));

    private LocalCohort cohort(int maxHandoffs) {
        return new LocalCohort(time, time::nanoTime, RECHECK_MS * MS, maxHandoffs, HEAD_START_MS * MS);
    }

    /** The first hand-off candidate of {@code owner}'s release, reserved (as a release does before it sends the script). */
    private static LocalWaiter take(LocalCohort cohort, long owner, Hold hold) {
        return cohort.reserveHandoff(owner, hold, LocalLine.Pick.FIRST).stream().findFirst().orElse(null);
    }

    /** A hold of {@code owner} that Redis granted just now (a re-entry when the owner already holds). */
    private Hold grant(long owner, long leaseMs) {
        return holds.granted(LockKind.PLAIN, NAME, NAME, "client:" + owner, owner, leaseMs, time.nanoTime(),
                renewal);
    }

    /** Redis granted {@code owner} the lock (watchdog lease) and the cohort is told, as an attempt does. */
    private Hold acquire(LocalCohort cohort, long owner) {
        Hold hold = grant(owner, Hold.WATCHDOG);
        assertThat(cohort.acquired(owner, hold)).isTrue();
        return hold;
    }

    /** This client has kept the lock long enough that a release which woke other clients gives way to them. */
    private void tenureServed() {
        time.advanceMillis(HEAD_START_MS * HeadStart.TENURE_IN_HEAD_STARTS);
    }

    /** The release of the owner's last hold went through (as {@code release()} does on its reply). */
    private void releaseDone(Hold hold) {
        holds.releasing(new HoldTable.HoldId(hold.key(), hold.field())).released(true);
    }

    /** Hands the lock from {@code from} to the next waiter, as a successful hand-off script reply does. */
    private LocalWaiter handOff(LocalCohort cohort, long from, Hold fromHold) {
        LocalWaiter next = take(cohort, from, fromHold);
        assertThat(next).as("hand-off target of owner %d", from).isNotNull();
        Hold nextHold = grant(next.ownerId, next.leaseMs);
        releaseDone(fromHold);
        cohort.handedOff(List.of(next), 0, nextHold);
        return next;
    }

    private static void assertHandedOver(LocalWaiter waiter) {
        assertThat(waiter.turn).as("turn of owner %d", waiter.ownerId).isCompletedWithValue(LocalTurn.Turn.HANDED_OVER);
    }

    private static void assertSentToRedis(LocalWaiter waiter) {
        assertThat(waiter.turn).as("turn of owner %d", waiter.ownerId).isCompletedWithValue(LocalTurn.Turn.ATTEMPT_IN_REDIS);
    }

    private static void assertStillWaiting(LocalWaiter waiter) {
        assertThat(waiter.turn).as("turn of owner %d", waiter.ownerId).isNotDone();
    }

    @Test
    void withoutALocalHolderNobodyQueues() {
        LocalCohort cohort = cohort(8);
        assertThat(cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).isNull();
        assertThat(cohort.heldByAnotherLocalOwner(2)).isFalse();
        assertThat(time.pending()).as("no timer for a waiter that did not queue").isZero();
    }

    @Test
    void aSleeperAskingForANudgeIsWokenWhenAnotherOwnerOfTheClientComesToHoldTheLock() {
        LocalCohort cohort = cohort(8);
        AtomicInteger nudged = new AtomicInteger();
        Runnable cancel = cohort.whenHeldByAnother(2, nudged::incrementAndGet);
        assertThat(cohort.retireIfIdle()).as("kept while a sleeper waits for a holder").isFalse();
        Hold first = acquire(cohort, 1);
        assertThat(nudged).as("granted to owner 1: owner 2 may wait behind it now").hasValue(1);
        cancel.run(); // its sleep ended: taken already, nothing left to cancel

        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(cohort.whenHeldByAnother(3, nudged::incrementAndGet)).isNotNull();
        assertThat(nudged).as("held by another owner already: at once").hasValue(2);
        assertThat(cohort.whenHeldByAnother(1, nudged::incrementAndGet)).isNotNull();
        assertThat(nudged).as("the holder itself waits for another holder").hasValue(2);
        assertThat(take(cohort, 1, first)).isSameAs(b);
        cohort.handedOff(List.of(b), 0, grant(2, Hold.WATCHDOG));
        assertThat(nudged).as("handed to owner 2: owner 1's nudge runs").hasValue(3);

        AtomicInteger cancelled = new AtomicInteger();
        LocalCohort other = cohort(8);
        other.whenHeldByAnother(5, cancelled::incrementAndGet).run();
        acquire(other, 6);
        assertThat(cancelled).as("a cancelled nudge never runs").hasValue(0);
    }

    @Test
    void theHolderItselfNeverQueuesBehindItself() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        assertThat(cohort.queueBehindLocalHolder(1, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).as("a re-entry goes to Redis").isNull();
        assertThat(cohort.heldByAnotherLocalOwner(1)).isFalse();
        assertThat(cohort.heldByAnotherLocalOwner(2)).isTrue();
        assertThat(cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).isNotNull();
    }

    @Test
    void handOffsServeTheWaitersInArrivalOrder() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, 5_000, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter d = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        assertThat(take(cohort, 1, first)).isSameAs(b);
        Hold bHold = grant(2, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(List.of(b), 0, bHold);
        assertHandedOver(b);
        assertStillWaiting(c);
        assertStillWaiting(d);
        assertThat(cohort.heldByAnotherLocalOwner(1)).as("owner 1 now waits behind owner 2").isTrue();
        assertThat(cohort.heldByAnotherLocalOwner(2)).isFalse();
        assertThat(take(cohort, 1, first)).as("owner 1 no longer holds: nothing to hand off").isNull();

        LocalWaiter toC = handOff(cohort, 2, bHold);
        assertThat(toC).isSameAs(c);
        assertThat(toC.leaseMs).as("the waiter's own lease goes with it").isEqualTo(5_000);
        assertHandedOver(c);
        assertStillWaiting(d);
        assertThat(handOff(cohort, 3, holds.find(new HoldTable.HoldId(NAME, "client:3")))).isSameAs(d);
        assertHandedOver(d);
        assertThat(take(cohort, 4, holds.find(new HoldTable.HoldId(NAME, "client:4")))).as("nobody left").isNull();
        assertThat(time.pending()).as("the waiters' timers are cancelled").isZero();
    }

    @Test
    void onlyTheLastAcquisitionOfTheHolderIsHandedOff() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        Hold reentered = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(reentered.acquisitions()).isEqualTo(2);
        assertThat(take(cohort, 1, reentered)).as("a partial release keeps the lock").isNull();
        assertThat(take(cohort, 1, null)).as("a hold this client does not track").isNull();
        assertStillWaiting(b);
    }

    @Test
    void handOffsInARowAreCappedAndTheCountRestartsAfterAReleaseThroughRedis() {
        LocalCohort cohort = cohort(2);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w4 = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w5 = cohort.queueBehindLocalHolder(5, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        handOff(cohort, 1, h1);
        handOff(cohort, 2, holds.find(new HoldTable.HoldId(NAME, "client:2")));
        Hold h3 = holds.find(new HoldTable.HoldId(NAME, "client:3"));
        assertThat(take(cohort, 3, h3)).as("third hand-off in a row with a cap of 2").isNull();
        assertStillWaiting(w4);

        // owner 3 releases through Redis (published): the first waiter attempts there, the count starts again
        releaseDone(h3);
        cohort.released(3);
        assertSentToRedis(w4);
        assertStillWaiting(w5);
        Hold h4 = acquire(cohort, 4);
        assertThat(handOff(cohort, 4, h4)).isSameAs(w5);
        assertHandedOver(w2);
        assertHandedOver(w3);
    }

    @Test
    void afterAReleaseThatWokeOtherClientsThisClientsOwnersGiveThemAHeadStart() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        releaseDone(h1);
        tenureServed();
        cohort.released(1, true, NO_EARLY_END);
        assertStillWaiting(w2);
        LocalWaiter again = cohort.queueBehindLocalHolder(1, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(again).as("the releaser's next lock() queues too, behind the head start").isNotNull();
        assertThat(cohort.heldByAnotherLocalOwner(4)).as("a single tryLock() still asks Redis").isFalse();

        time.advanceMillis(HEAD_START_MS - 1);
        assertStillWaiting(w2);
        time.advanceMillis(1);
        assertSentToRedis(w2);
        assertStillWaiting(w3);
        assertStillWaiting(again);
        assertThat(cohort.describe()).doesNotContain("givingWay");
    }

    @Test
    void withinItsTenureAClientDoesNotGiveWay() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        time.advanceMillis(HEAD_START_MS * HeadStart.TENURE_IN_HEAD_STARTS - 1);
        releaseDone(h1);
        cohort.released(1, true, NO_EARLY_END);
        assertSentToRedis(w2);
        assertThat(cohort.describe()).doesNotContain("givingWay");
    }

    @Test
    void aReleaseThatWokeNobodyElseSendsTheNextWaiterToRedisAtOnce() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        releaseDone(h1);
        cohort.released(1, false, NO_EARLY_END);
        assertSentToRedis(w2);
        assertThat(cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).as("no holder, no head start").isNull();
    }

    @Test
    void aHeadStartEndsWhenAnotherClientTookTheLockOrThisOneGotIt() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        releaseDone(h1);
        tenureServed();
        cohort.released(1, true, NO_EARLY_END);

        // an owner woken by the unlock message itself lost the race in Redis: another client holds the lock
        cohort.busyInRedis();
        assertSentToRedis(w2);
        assertSentToRedis(w3);
        assertThat(time.pending()).as("the head start's timer is cancelled").isZero();

        LocalWaiter w4;
        Hold h2 = acquire(cohort, 2);
        w4 = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        releaseDone(h2);
        tenureServed();
        cohort.released(2, true, NO_EARLY_END);
        Hold h5 = acquire(cohort, 5);
        assertThat(cohort.describe()).as("a grant in Redis ends the head start").doesNotContain("givingWay");
        assertThat(take(cohort, 5, h5)).as("the waiter stays queued behind the new holder").isSameAs(w4);
    }

    @Test
    void aHeadStartEndsAtTheFirstUnlockMessageAfterTheReleasesOwn() {
        LocalCohort cohort = cohort(8);
        cohort.unlockMessageArrived();
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        long before = cohort.unlockMessages();
        assertThat(before).isEqualTo(1);
        releaseDone(h1);
        // the client listens on the channel: its own copy of the release's message is one, the next one ends it
        tenureServed();
        cohort.released(1, true, before + 1 + 1);
        cohort.unlockMessageArrived();
        assertStillWaiting(w2);
        cohort.unlockMessageArrived();
        assertSentToRedis(w2);
        assertThat(time.pending()).as("the head start's timer is cancelled").isZero();
    }

    @Test
    void aCohortIsNotRetiredWhileItGivesWay() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        releaseDone(h1);
        tenureServed();
        cohort.released(1, true, NO_EARLY_END);
        assertThat(cohort.retireIfIdle()).isFalse();
        time.advanceMillis(HEAD_START_MS);
        assertThat(cohort.retireIfIdle()).isTrue();
    }

    @Test
    void anotherOwnerTakingTheLockThroughRedisRestartsTheCount() {
        LocalCohort cohort = cohort(1);
        Hold h1 = acquire(cohort, 1);
        cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        handOff(cohort, 1, h1);
        Hold h2 = holds.find(new HoldTable.HoldId(NAME, "client:2"));
        cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(take(cohort, 2, h2)).as("cap of 1 used up").isNull();

        // the record is replaced by a grant from Redis to another owner (the lock went round through Redis)
        releaseDone(h2);
        Hold h4 = acquire(cohort, 4);
        assertThat(take(cohort, 4, h4)).as("a new streak may begin").isNotNull();
    }

    @Test
    void withACapOfZeroNothingIsEverHandedOff() {
        LocalCohort cohort = cohort(0);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(b).as("waiting locally still saves the doomed attempts").isNotNull();
        assertThat(take(cohort, 1, h1)).isNull();
        releaseDone(h1);
        cohort.released(1);
        assertSentToRedis(b);
    }

    @Test
    void aWaiterThatLeavesBeforeItIsChosenIsSkipped() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        cohort.leave(b);
        assertSentToRedis(b);
        cohort.leave(b);
        assertSentToRedis(b);
        assertThat(take(cohort, 1, h1)).isSameAs(c);
    }

    @Test
    void aWaiterChosenForAHandOffCanNoLongerLeave() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(take(cohort, 1, h1)).isSameAs(b);

        cohort.leave(b);
        assertThat(b.turn).as("the hand-off decides, not the leave").isNotDone();
        cohort.handedOff(List.of(b), 0, grant(2, Hold.WATCHDOG));
        assertHandedOver(b);

        // a hand-off that did not happen sends its first candidate to Redis; the rest keep waiting
        assertThat(take(cohort, 2, holds.find(new HoldTable.HoldId(NAME, "client:2")))).isSameAs(c);
        cohort.handoffFailed(List.of(c));
        assertSentToRedis(c);
        assertThat(cohort.heldByAnotherLocalOwner(3)).as("the failed hand-off leaves the holder as it was").isTrue();
    }

    @Test
    void aWaiterTrustsTheHolderNoLongerThanItsOwnWait() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        LocalWaiter w = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, 300 * MS, Long.MAX_VALUE, false);
        time.advanceMillis(299);
        assertStillWaiting(w);
        time.advanceMillis(1);
        assertSentToRedis(w);
        assertThat(take(cohort, 1, holds.find(new HoldTable.HoldId(NAME, "client:1")))).as("it left the queue").isNull();
    }

    /**
     * The recheck bounds how long a waiter goes on trusting a holder whose hold ended without the cohort being told
     * (here the hold table dropped it, as after a loss): the waiter finds out at its recheck, not later.
     */
    @Test
    void aWaiterLooksAgainAtTheHolderAfterTheRecheckPeriod() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        LocalWaiter forever = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter longWait = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, 5_000 * MS, Long.MAX_VALUE, false);
        time.advanceMillis(RECHECK_MS / 2);
        holds.discardAll(NAME);
        time.advanceMillis(RECHECK_MS / 2 - 1);
        assertStillWaiting(forever);
        assertStillWaiting(longWait);
        time.advanceMillis(1);
        assertSentToRedis(forever);
        assertSentToRedis(longWait);
        assertThat(time.pending()).isZero();
    }

    @Test
    void aWaiterTrustsTheHolderNoLongerThanItsKnownValidity() {
        LocalCohort cohort = cohort(8);
        Hold leased = grant(1, 500);
        cohort.acquired(1, leased);
        // known valid for 500 ms minus the margin (1% + 2 ms): 493 ms
        assertThat(leased.validForNanos(time.nanoTime())).isEqualTo(493 * MS);
        time.advanceMillis(100);
        LocalWaiter w = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        time.advanceMillis(392);
        assertStillWaiting(w);
        time.advanceMillis(1);
        assertSentToRedis(w);
    }

    @Test
    void busyInRedisSendsTheWaitersThereOnlyWhenNoLocalOwnerHoldsTheLock() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter d = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        cohort.busyInRedis();
        assertStillWaiting(b);
        assertStillWaiting(c);
        assertStillWaiting(d);

        // owner 1 releases; b attempts in Redis and finds the lock taken by another client: c and d must not wait
        // for a local hand-off that cannot come
        releaseDone(h1);
        cohort.released(1);
        assertSentToRedis(b);
        assertStillWaiting(c);
        cohort.busyInRedis();
        assertSentToRedis(c);
        assertSentToRedis(d);
        assertThat(time.pending()).isZero();
        assertThat(cohort.retireIfIdle()).isTrue();
    }

    @Test
    void releasedWakesOnlyTheFirstWaiterAndOnlyForTheHolder() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        cohort.released(2);
        assertStillWaiting(b);
        assertThat(cohort.heldByAnotherLocalOwner(2)).as("a non-holder's release changes nothing").isTrue();

        releaseDone(h1);
        cohort.released(1);
        assertSentToRedis(b);
        assertStillWaiting(c);
        assertThat(cohort.heldByAnotherLocalOwner(3)).isFalse();
        assertThat(cohort.retireIfIdle()).as("c still waits").isFalse();

        // whoever gets it next from Redis hands it to c
        Hold h2 = acquire(cohort, 2);
        assertThat(handOff(cohort, 2, h2)).isSameAs(c);
        assertHandedOver(c);
    }

    @Test
    void aTurnTheFirstWaiterCannotUseGoesToTheNextOneUnlessALocalOwnerHoldsTheLock() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter d = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        cohort.passOn();
        assertStillWaiting(b);
        assertThat(cohort.heldByAnotherLocalOwner(2)).as("nothing to pass on while owner 1 holds it").isTrue();

        releaseDone(h1);
        cohort.released(1);
        assertSentToRedis(b);
        // b gave up meanwhile: its turn goes to c, and only to c
        cohort.passOn();
        assertSentToRedis(c);
        assertStillWaiting(d);
    }

    @Test
    void clearSendsEveryWaiterToRedisAndForgetsTheHolder() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        cohort.clear();
        assertSentToRedis(b);
        assertSentToRedis(c);
        assertThat(cohort.heldByAnotherLocalOwner(2)).isFalse();
        assertThat(time.pending()).isZero();
        assertThat(cohort.retireIfIdle()).isTrue();
    }

    @Test
    void onlyAnIdleCohortRetiresAndARetiredOneAnswersNothing() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        assertThat(cohort.retireIfIdle()).as("held").isFalse();
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        releaseDone(h1);
        cohort.released(1);
        assertSentToRedis(b);
        assertThat(cohort.retireIfIdle()).isTrue();
        assertThat(cohort.retireIfIdle()).as("stays retired").isTrue();

        assertThat(cohort.acquired(2, grant(2, Hold.WATCHDOG))).as("a retired cohort records nothing").isFalse();
        assertThat(cohort.heldByAnotherLocalOwner(3)).isFalse();
        assertThat(cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).isNull();
    }

    @Test
    void aHolderWhoseHoldIsNoLongerValidCountsAsNone() {
        LocalCohort cohort = cohort(8);
        Hold leased = grant(1, 200);
        cohort.acquired(1, leased);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(cohort.heldByAnotherLocalOwner(2)).isTrue();

        time.advanceMillis(200);
        assertSentToRedis(b);
        assertThat(cohort.heldByAnotherLocalOwner(2)).as("lease ran out").isFalse();
        assertThat(cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).isNull();
        assertThat(take(cohort, 1, leased)).isNull();
    }

    @Test
    void aHolderWhoseHoldEndedCountsAsNone() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        // the hold table forgot the hold (force-unlocked elsewhere in this client, found not held …) before the cohort
        // heard of it: the cohort must not keep anybody waiting behind it
        holds.discardAll(NAME);
        assertThat(h1.validForNanos(time.nanoTime())).isZero();
        assertThat(cohort.heldByAnotherLocalOwner(2)).isFalse();
        assertThat(cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).isNull();
        cohort.busyInRedis();
        assertSentToRedis(b);
        assertSentToRedis(c);
    }

    /**
     * A holder that never unlocks (a lease left to run out) must not keep its cohort, and the registry entry, alive
     * forever: once its hold is no longer valid it counts as none here too.
     */
    @Test
    void aCohortWhoseHolderIsNoLongerValidIsIdle() {
        LocalCohort cohort = cohort(8);
        cohort.acquired(1, grant(1, 200));
        assertThat(cohort.retireIfIdle()).isFalse();
        time.advanceMillis(200);
        assertThat(cohort.retireIfIdle()).isTrue();
    }

    @Test
    void theRegistryKeepsACohortOnlyWhileSomebodyHoldsOrWaits() {
        LocalCohorts cohorts = new LocalCohorts(time, time::nanoTime, RECHECK_MS * MS, 8, HEAD_START_MS * MS,
                (key, field) -> CompletableFuture.completedFuture(true));
        assertThat(cohorts.find(NAME)).isNull();
        Hold h1 = grant(1, Hold.WATCHDOG);
        cohorts.acquired(NAME, 1, h1);
        LocalCohort cohort = cohorts.find(NAME);
        assertThat(cohort).isNotNull();
        assertThat(cohorts.size()).isEqualTo(1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        releaseDone(h1);
        cohorts.released(NAME, 1);
        assertSentToRedis(b);
        assertThat(cohorts.size()).as("dropped once idle").isZero();
        assertThat(cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false)).as("the old one is retired").isNull();

        // a grant after that starts a fresh cohort, even if somebody recorded it in the retired one
        Hold h2 = grant(2, Hold.WATCHDOG);
        cohorts.acquired(NAME, 2, h2);
        assertThat(cohorts.find(NAME)).isNotNull().isNotSameAs(cohort);
        assertThat(cohorts.find(NAME).heldByAnotherLocalOwner(3)).isTrue();

        cohorts.cleared(NAME);
        assertThat(cohorts.size()).as("dropped after a force-unlock").isZero();
        cohorts.released("never-used", 9);
        cohorts.cleared("never-used");
        assertThat(cohorts.size()).isZero();
    }

    // ---- with the acquisition loop: what a waiter does with its turn ----

    /** A gate like the plain lock's, on one cohort, for {@code owner}. */
    private static LocalGate loopGate(LocalCohort cohort, long owner) {
        return new LocalGate() {
            @Override
            public boolean heldLocally() {
                return cohort.heldByAnotherLocalOwner(owner);
            }

            @Override
            public LocalTurn queue(long maxWaitNanos) {
                return cohort.queueBehindLocalHolder(owner, Hold.WATCHDOG, maxWaitNanos, Long.MAX_VALUE, false);
            }

            @Override
            public void leave(LocalTurn waiter) {
                cohort.leave((LocalWaiter) waiter);
            }

            @Override
            public void passOn() {
                cohort.passOn();
            }

            @Override
            public void busyInRedis() {
                cohort.busyInRedis();
            }

            @Override
            public void verifyHolder() {
                // the loops of these tests subscribe at once: nothing to check after a late subscription
            }
        };
    }

    /** The acquisition of {@code owner} through a gate on {@code cohort}; every Redis attempt acquires. */
    private AcquireLoop loop(LocalCohort cohort, long owner, LongSupplier clock, long deadlineNanos,
                             AtomicInteger redisAttempts) {
        LocalGate gate = loopGate(cohort, owner);
        WakeupHub hub = new WakeupHub(new PubSubPort() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                return CompletableFuture.completedFuture(null);
            }
        }, time);
        return new AcquireLoop(new AcquireSteps("lock", NAME, () -> {
            redisAttempts.incrementAndGet();
            cohort.acquired(owner, grant(owner, Hold.WATCHDOG));
            return CompletableFuture.completedFuture(null);
        }, () -> CompletableFuture.completedFuture(null), () -> CompletableFuture.completedFuture(null), List.of("channel"),
                WakeMode.ONE, gate, cleanup -> { }),
                new LoopWaiting(hub, clock, WATCHDOG_MS, new Outage(time, () -> false)), deadlineNanos, false);
    }

    /**
     * The registry's sweep: a holder whose field is gone from Redis (force-unlocked by another client, deleted)
     * sends its waiters to Redis; a cohort whose holder's lease ran out with nobody waiting is dropped.
     */
    @Test
    void theSweepSendsWaitersOfAVanishedHolderToRedisAndDropsCohortsOfExpiredHolds() {
        Set<String> inRedis = ConcurrentHashMap.newKeySet();
        List<String> checked = new CopyOnWriteArrayList<>();
        LocalCohorts cohorts = new LocalCohorts(time, time::nanoTime, RECHECK_MS * MS, 8, HEAD_START_MS * MS, (key, field) -> {
            checked.add(key + " " + field);
            return CompletableFuture.completedFuture(inRedis.contains(field));
        });
        Hold h1 = grant(1, Hold.WATCHDOG);
        inRedis.add(h1.field());
        cohorts.acquired(NAME, 1, h1);
        LocalWaiter b = cohorts.find(NAME).queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        cohorts.sweep();
        assertThat(checked).containsExactly(NAME + " " + h1.field());
        assertThat(b.turn).as("the holder is still there").isNotDone();

        inRedis.clear();
        cohorts.sweep();
        assertSentToRedis(b);

        // nobody waits: no check in Redis; a hold whose fixed lease ran out leaves nothing behind
        checked.clear();
        Hold h3 = grant(3, 500);
        cohorts.acquired("other", 3, h3);
        cohorts.sweep();
        assertThat(checked).isEmpty();
        assertThat(cohorts.find("other")).isNotNull();
        time.advanceMillis(600);
        cohorts.sweep();
        assertThat(cohorts.find("other")).isNull();
    }

    /**
     * An unlock message on the lock's channel while owners wait behind a local holder: the holder is checked in Redis
     * at once (not at the next sweep), and its waiters go to Redis if it is gone. A message for a lock nobody waits for
     * locally, or on another channel, asks Redis nothing.
     */
    @Test
    void anUnlockMessageChecksTheLocalHolderAtOnce() {
        Set<String> inRedis = ConcurrentHashMap.newKeySet();
        List<String> checked = new CopyOnWriteArrayList<>();
        LocalCohorts cohorts = new LocalCohorts(time, time::nanoTime, RECHECK_MS * MS, 8, HEAD_START_MS * MS, (key, field) -> {
            checked.add(key + " " + field);
            return CompletableFuture.completedFuture(inRedis.contains(field));
        });
        Hold h1 = grant(1, Hold.WATCHDOG);
        inRedis.add(h1.field());
        cohorts.acquired(NAME, 1, h1);
        cohorts.unlockMessage("redisson_lock__channel:{" + NAME + "}");
        assertThat(checked).as("nobody waits: nothing to check").isEmpty();

        LocalWaiter b = cohorts.find(NAME).queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        cohorts.unlockMessage("redisson_lock__channel:{" + NAME + "}");
        assertThat(checked).containsExactly(NAME + " " + h1.field());
        assertThat(b.turn).as("a late message of an earlier release: the holder is still there").isNotDone();

        checked.clear();
        cohorts.unlockMessage("redisson_lock__channel:{another}");
        cohorts.unlockMessage("redisson_rwlock:{another}");
        cohorts.unlockMessage("redisson_lock_queue:{" + NAME + "}");
        assertThat(checked).as("other channels").isEmpty();
        cohorts.unlockMessage("redisson_rwlock:{" + NAME + "}"); // writers of a read-write lock NAME wait in it too
        assertThat(checked).containsExactly(NAME + " " + h1.field());
        checked.clear();

        long before = time.nanoTime();
        inRedis.clear(); // force-unlocked by another client, which published the message
        cohorts.unlockMessage("redisson_lock__channel:{" + NAME + "}");
        assertSentToRedis(b);
        assertThat(time.nanoTime()).as("no time passed: not the sweep").isEqualTo(before);
    }

    /**
     * The holder releases through Redis just as the first waiter's wait runs out (its own timer has not fired yet):
     * the first waiter makes one last attempt in Redis, as any waiter does at its deadline, and gets the lock.
     */
    @Test
    void aWaiterOutOfTimeWhenItsTurnComesMakesOneLastAttemptInRedis() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        AtomicLong skew = new AtomicLong();
        LongSupplier loopClock = () -> time.nanoTime() + skew.get();
        AtomicInteger attemptsOfB = new AtomicInteger();
        AtomicInteger attemptsOfC = new AtomicInteger();
        AcquireLoop b = loop(cohort, 2, loopClock, time.nanoTime() + 100 * MS, attemptsOfB);
        AcquireLoop c = loop(cohort, 3, loopClock, AcquireLoop.NO_DEADLINE, attemptsOfC);
        b.start();
        c.start();
        assertThat(attemptsOfB.get() + attemptsOfC.get()).as("both wait locally").isZero();

        // b's deadline has passed by its clock, but its timer (cohort time) has not fired
        skew.set(150 * MS);
        releaseDone(h1);
        cohort.released(1);
        assertThat(attemptsOfB).hasValue(1);
        assertThat(b.result()).isCompletedWithValue(true);
        assertThat(attemptsOfC).as("c now waits behind b").hasValue(0);
        assertThat(c.result()).isNotDone();
    }

    /**
     * The first waiter's caller gave up at the moment the holder released through Redis and sent it to Redis: the
     * turn it will not use must reach the next waiter rather than leave it asleep while the lock is free.
     */
    @Test
    void aWaiterThatGaveUpWithTheTurnInHandPassesItOn() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        AtomicInteger attemptsOfB = new AtomicInteger();
        AtomicInteger attemptsOfC = new AtomicInteger();
        AcquireLoop b = loop(cohort, 2, time::nanoTime, AcquireLoop.NO_DEADLINE, attemptsOfB);
        AcquireLoop c = loop(cohort, 3, time::nanoTime, AcquireLoop.NO_DEADLINE, attemptsOfC);
        b.start();
        c.start();
        b.result().cancel(false); // settled, but still queued: the race abandon() loses against released()

        releaseDone(h1);
        cohort.released(1);
        assertThat(attemptsOfB).hasValue(0);
        assertThat(attemptsOfC).as("c attempts at once, not at its recheck").hasValue(1);
        assertThat(c.result()).isCompletedWithValue(true);
    }

    @Test
    void aHandedOverTurnCompletesTheAcquisitionWithoutAskingRedis() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        AtomicInteger attempts = new AtomicInteger();
        AcquireLoop b = loop(cohort, 2, time::nanoTime, AcquireLoop.NO_DEADLINE, attempts);
        b.start();
        assertThat(b.result()).isNotDone();
        handOff(cohort, 1, h1);
        assertThat(b.result()).isCompletedWithValue(true);
        assertThat(b.finished()).isDone();
        assertThat(attempts).hasValue(0);
        assertThat(cohort.heldByAnotherLocalOwner(1)).isTrue();
    }

    @Test
    void aSingleAttemptBehindALocalHolderFailsWithoutAskingRedis() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        AtomicInteger attempts = new AtomicInteger();
        AcquireLoop once = new AcquireLoop(new AcquireSteps("lock", NAME, () -> {
            attempts.incrementAndGet();
            return CompletableFuture.completedFuture(1_000L);
        }, () -> CompletableFuture.completedFuture(null), () -> CompletableFuture.completedFuture(null), List.of("channel"),
                WakeMode.ONE, loopGate(cohort, 2), cleanup -> { }), new LoopWaiting(null, time::nanoTime, WATCHDOG_MS,
                new Outage(time, () -> false)), time.nanoTime(), true);
        once.start();
        assertThat(once.result()).isCompletedWithValue(false);
        assertThat(attempts).hasValue(0);
        assertThat(time.pending()).as("nothing queued, nothing scheduled").isZero();
    }

    /**
     * Issue 18, the interleaving seen in the stress run: the holder's hand-off script has run (Redis holds the lock for
     * the receiver) but its reply is not handled yet when an unlock message (a late one, from an earlier release) has
     * the holder checked: {@code HEXISTS} finds the releaser's field gone. The receiver must not be sent to Redis then;
     * it used to be, adopted the field the hand-off gave it, entered, and the hand-off's reply then released "its"
     * hold on its behalf: Redis free, owner inside.
     */
    @Test
    void aReservedHandOffTargetIsNotSentToRedisWhenTheReleasersFieldIsFoundGone() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(cohort.reserveHandoff(1, h1, LocalLine.Pick.FIRST).stream().findFirst().orElse(null)).isSameAs(w2);
        assertThat(cohort.holdToVerify()).as("nothing to verify while a hand-off is under way").isNull();

        cohort.holderGone(h1);
        assertStillWaiting(w2);
        assertStillWaiting(w3);
        assertThat(cohort.retireIfIdle()).as("a cohort with a hand-off under way is not idle").isFalse();
        assertThat(cohort.reserveHandoff(1, h1, LocalLine.Pick.FIRST).stream().findFirst().orElse(null)).as("one hand-off at a time").isNull();

        Hold h2 = grant(2, Hold.WATCHDOG);
        releaseDone(h1);
        cohort.handedOff(List.of(w2), 0, h2);
        assertHandedOver(w2);
        assertStillWaiting(w3);
        assertThat(cohort.heldByAnotherLocalOwner(3)).isTrue();
    }

    /** Nothing but the hand-off's outcome ends a reserved waiter's wait: not its deadline, a leave, busy or clear. */
    @Test
    void aReservedHandOffTargetWaitsForTheOutcomeWhateverElseHappens() {
        LocalCohort cohort = cohort(8);
        Hold h1 = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, 50 * MS, Long.MAX_VALUE, false);
        assertThat(cohort.reserveHandoff(1, h1, LocalLine.Pick.FIRST).stream().findFirst().orElse(null)).isSameAs(w2);
        time.advanceMillis(100);
        cohort.leave(w2);
        cohort.passOn();
        cohort.clear();
        cohort.busyInRedis();
        assertStillWaiting(w2);
        assertThat(cohort.waiterCount()).as("the reserved waiter still counts as waiting").isEqualTo(1);
        cohort.handoffFailed(List.of(w2));
        assertSentToRedis(w2);
        assertThat(cohort.waiterCount()).isZero();
    }

    // ---- hand-offs that Redis's own line decides (the fair lock) ----

    @Test
    void aHandOffToAnyWaiterReservesTheWholeLineAndPutsTheOthersBackInOrder() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter d = cohort.queueBehindLocalHolder(4, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);

        List<LocalWaiter> reserved = cohort.reserveHandoff(1, first, LocalLine.Pick.EVERY);
        assertThat(reserved).containsExactly(b, c, d);
        assertThat(time.pending()).as("reserved waiters' timers are cancelled").isZero();
        assertThat(cohort.reserveHandoff(1, first, LocalLine.Pick.EVERY)).as("one hand-off at a time").isEmpty();
        time.advanceMillis(RECHECK_MS * 5);
        reserved.forEach(LocalCohortTest::assertStillWaiting);

        Hold cHold = grant(3, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(reserved, 1, cHold); // Redis had owner 3 first in its line
        assertHandedOver(c);
        assertStillWaiting(b);
        assertStillWaiting(d);
        assertThat(cohort.describe()).contains("holder=3").contains("waiters=[2 4]");
        assertThat(cohort.heldByAnotherLocalOwner(2)).isTrue();
    }

    @Test
    void aHandOffToAnyWaiterIsNotCappedSinceRedisDecidesWhoIsNext() {
        LocalCohort cohort = cohort(1);
        Hold hold = acquire(cohort, 1);
        long owner = 1;
        for (long next = 2; next <= 5; next++) {
            LocalWaiter waiter = cohort.queueBehindLocalHolder(next, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
            List<LocalWaiter> reserved = cohort.reserveHandoff(owner, hold, LocalLine.Pick.EVERY);
            assertThat(reserved).as("hand-off %d in a row", next - 1).containsExactly(waiter);
            Hold nextHold = grant(next, Hold.WATCHDOG);
            releaseDone(hold);
            cohort.handedOff(reserved, 0, nextHold);
            hold = nextHold;
            owner = next;
        }
    }

    @Test
    void aReservedWaiterWhoseCallerLeftIsSentOnWhenAnotherGetsTheLock() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        List<LocalWaiter> reserved = cohort.reserveHandoff(1, first, LocalLine.Pick.EVERY);

        cohort.leave(b);
        assertStillWaiting(b); // the outcome of the hand-off ends its wait, nothing else
        Hold cHold = grant(3, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(reserved, 1, cHold);
        assertHandedOver(c);
        assertSentToRedis(b);
        assertThat(cohort.waiterCount()).isZero();
    }

    @Test
    void aFailedHandOffToAnyWaiterSendsEveryReservedWaiterToRedis() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter b = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter c = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        List<LocalWaiter> reserved = cohort.reserveHandoff(1, first, LocalLine.Pick.EVERY);
        cohort.handoffFailed(reserved);
        assertSentToRedis(b);
        assertSentToRedis(c);
        assertThat(cohort.waiterCount()).isZero();
    }

    @Test
    void aWaiterWithARefreshAsksRedisAgainBehindALiveHolder() {
        LocalCohort cohort = cohort(8);
        acquire(cohort, 1);
        LocalWaiter fair = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, 300 * MS, false);
        LocalWaiter plain = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        time.advanceMillis(299);
        assertStillWaiting(fair);
        time.advanceMillis(1);
        assertSentToRedis(fair);
        assertStillWaiting(plain);
    }

    // ---- readers and writers of a read-write lock ----

    private LocalWaiter reader(LocalCohort cohort, long owner) {
        return cohort.queueBehindLocalHolder(owner, Hold.WATCHDOG, FOREVER, FOREVER, true);
    }

    /** Readers that waited behind a write hold longer than their patience have the next turn (issue 27, failure 10). */
    @Test
    void readersWaitingLongerThanTheirPatienceGetTheHandOffBeforeAWriterThatQueuedBetweenThem() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter r2 = reader(cohort, 2);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter r4 = reader(cohort, 4);
        time.advanceMillis(TimeUnit.NANOSECONDS.toMillis(ReadWriteSide.READERS_PATIENCE_NANOS));
        List<LocalWaiter> readers = cohort.reserveHandoff(1, first,
                LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE);
        assertThat(readers).containsExactly(r2, r4);
        releaseDone(first);
        cohort.handedOffShared(readers);
        assertHandedOver(r2);
        assertHandedOver(r4);
        assertSentToRedis(w3);
        assertThat(cohort.heldByAnotherLocalOwner(5)).as("readers are no exclusive holder").isFalse();
        assertThat(cohort.retireIfIdle()).isTrue();
    }

    /** Within their patience, readers let a waiting writer go first: writers pass the lock on in one script each. */
    @Test
    void aWaitingWriterGetsTheHandOffWhileTheReadersAreWithinTheirPatience() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter r2 = reader(cohort, 2);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        time.advanceMillis(TimeUnit.NANOSECONDS.toMillis(ReadWriteSide.READERS_PATIENCE_NANOS) - 1);
        assertThat(cohort.reserveHandoff(1, first, LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE))
                .containsExactly(w3);
        Hold w3Hold = grant(3, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(List.of(w3), 0, w3Hold);
        assertHandedOver(w3);
        assertStillWaiting(r2);
    }

    @Test
    void withNoReaderWaitingTheFirstWaitingWriterGetsTheHandOff() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(cohort.reserveHandoff(1, first, LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE))
                .containsExactly(w2);
        Hold w2Hold = grant(2, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(List.of(w2), 0, w2Hold);
        assertHandedOver(w2);
        assertStillWaiting(w3);
    }

    @Test
    void readersAreHandedTheLockEvenWhenTheWritersStreakIsCapped() {
        LocalCohort cohort = cohort(1);
        Hold first = acquire(cohort, 1);
        LocalWaiter w2 = cohort.queueBehindLocalHolder(2, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(take(cohort, 1, first)).isSameAs(w2);
        Hold w2Hold = grant(2, Hold.WATCHDOG);
        releaseDone(first);
        cohort.handedOff(List.of(w2), 0, w2Hold);
        assertHandedOver(w2);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        assertThat(cohort.reserveHandoff(2, w2Hold, LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE))
                .as("the writers' streak is used up").isEmpty();
        cohort.leave(w3);
        LocalWaiter r4 = reader(cohort, 4);
        assertThat(cohort.reserveHandoff(2, w2Hold, LocalLine.Pick.FIRST_EXCLUSIVE_UNTIL_SHARED_OVERDUE))
                .containsExactly(r4);
    }

    @Test
    void whenTheLockGoesThroughRedisAllWaitingReadersAskTogether() {
        LocalCohort cohort = cohort(8);
        Hold first = acquire(cohort, 1);
        LocalWaiter r2 = reader(cohort, 2);
        LocalWaiter w3 = cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        LocalWaiter r4 = reader(cohort, 4);
        releaseDone(first);
        cohort.released(1);
        assertSentToRedis(r2);
        assertSentToRedis(r4);
        assertStillWaiting(w3);
    }

    @Test
    void aCapOfZeroMeansNoHandOffOfAnyKind() {
        LocalCohort cohort = cohort(0);
        Hold first = acquire(cohort, 1);
        reader(cohort, 2);
        cohort.queueBehindLocalHolder(3, Hold.WATCHDOG, FOREVER, Long.MAX_VALUE, false);
        for (LocalLine.Pick pick : LocalLine.Pick.values()) {
            assertThat(cohort.reserveHandoff(1, first, pick)).as(pick.toString()).isEmpty();
        }
    }
}
