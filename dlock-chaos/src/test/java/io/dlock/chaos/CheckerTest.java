package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.QUIESCENT;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static io.dlock.chaos.Event.Type.CONNECTIONS_KILLED;
import static io.dlock.chaos.Event.Type.RELEASE_NOT_FREED;
import static io.dlock.chaos.Event.Type.RELEASE_FREED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.BYE;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.EXITED;
import static io.dlock.chaos.Event.Type.FAULT_END;
import static io.dlock.chaos.Event.Type.FAULT_START;
import static io.dlock.chaos.Event.Type.FREED;
import static io.dlock.chaos.Event.Type.HELLO;
import static io.dlock.chaos.Event.Type.HUNG;
import static io.dlock.chaos.Event.Type.LEASE_LOST;
import static io.dlock.chaos.Event.Type.LEFTOVER;
import static io.dlock.chaos.Event.Type.NOT_FREED;
import static io.dlock.chaos.Event.Type.NOT_VALID;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.STORE_ACCEPTED;
import static io.dlock.chaos.Event.Type.STORE_REJECTED;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.WRITE_OK;
import static io.dlock.chaos.Event.Type.WRITE_START;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checker on made-up histories: a clean one passes, and each invariant fails on a history that breaks it (so a
 * green chaos run means something).
 */
class CheckerTest {
    private static final long MS = TestHistory.MS;
    private static final long LEASE_MS = TestHistory.LEASE_MS;

    private final TestHistory history = new TestHistory();
    private final List<Event> events = history.events;

    private void at(long ms, String source, Event.Type type, long token, String detail) {
        history.at(ms, source, type, token, detail);
    }

    private void at(long ms, String source, Event.Type type, String detail) {
        history.at(ms, source, type, detail);
    }

    private static String checks(long atMs, long validMs) {
        return TestHistory.checks(atMs, validMs);
    }

    /** A well-behaved hold: acquire, one accepted write, exit, unlock. */
    private void hold(String worker, long token, long requestedMs, long acquiredMs, long exitMs) {
        at(requestedMs, worker, ACQUIRE_START, "wait");
        at(acquiredMs, worker, ACQUIRED, token, "wait");
        long writeMs = (acquiredMs + exitMs) / 2;
        at(writeMs, worker, WRITE_START, token, checks(writeMs, 1500));
        at(writeMs, "store", STORE_ACCEPTED, token, worker);
        at(writeMs + 1, worker, WRITE_OK, token, "");
        at(exitMs, worker, EXIT, token, checks(exitMs, 1500));
        at(exitMs + 1, worker, UNLOCKED, token, "");
    }

    private void fault(long startMs, long endMs, String what) {
        history.fault(startMs, endMs, what);
    }

    private Report check() {
        return history.check();
    }

    /** Two clean holds and a few workers' greetings. */
    private void cleanRun() {
        at(0, "w1/fenced", HELLO, "c1:1");
        at(0, "w2/fenced", HELLO, "c2:1");
        hold("w1/fenced", 1000, 10, 12, 60);
        hold("w2/fenced", 1001, 20, 62, 110);
        hold("w1/fenced", 1002, 70, 112, 160);
    }

    @Test
    void cleanHistoryPasses() {
        cleanRun();
        at(300, "w1", BYE, "handoffs plain=7 fair=0 rw=2 fenced=0");
        at(300, "w2", BYE, "handoffs plain=5 fair=0 rw=0 fenced=0");
        Report report = check();
        assertThat(report.totalViolations()).as(report.table()).isZero();
        assertThat(report.checked(Invariant.TOKENS_INCREASE)).isEqualTo(3);
        assertThat(report.checked(Invariant.NO_STALE_WRITE)).isEqualTo(3);
        // no violation, but a history this small leaves most invariants without a case: that fails a run
        assertThat(report.passed()).isFalse();
        assertThat(report.unjudged()).contains(Invariant.DEAD_HOLDER_FREED, Invariant.PERMITS_CONSERVED,
                Invariant.LATCH_OPENS_BY_COUNT_DOWNS).doesNotContain(Invariant.TOKENS_INCREASE);
        assertThat(report.table()).contains("judged no case")
                .containsPattern("local hand-offs \\(workers that stopped\\) +12 +0 +2 +0 +0 +0 +0 +0 +0 +0 +0 +14");
    }

    @Test
    void aHoldLeftByACancelledAcquisitionIsCaughtAtQuiescence() {
        cleanRun();
        at(290, "w1", QUIESCENT, "held=0");
        at(290, "w2", QUIESCENT, "held=1 chaos:mcancel:a owner=41 count=1 watchdog=true");
        Report report = check();
        assertThat(report.checked(Invariant.NOTHING_HELD_BY_CANCELLED)).isEqualTo(2);
        assertThat(report.violations(Invariant.NOTHING_HELD_BY_CANCELLED)).singleElement().asString()
                .contains("w2 still held at quiescence").contains("chaos:mcancel:a owner=41");
        assertThat(report.passed()).isFalse();
    }

    @Test
    void nothingHeldAtQuiescencePasses() {
        cleanRun();
        at(290, "w1", QUIESCENT, "held=0");
        Report report = check();
        assertThat(report.checked(Invariant.NOTHING_HELD_BY_CANCELLED)).isEqualTo(1);
        assertThat(report.violations(Invariant.NOTHING_HELD_BY_CANCELLED)).isEmpty();
    }

    @Test
    void tokensThatGoBackAreCaught() {
        cleanRun();
        // Redis restarted without persistence and the counter began again at 1, as a plain INCR would
        fault(200, 400, "redis-restart redis");
        hold("w2/fenced", 1, 500, 502, 550);
        Report report = check();
        assertThat(report.violations(Invariant.TOKENS_INCREASE)).singleElement().asString()
                .contains("got token 1, not above 1002");
        assertThat(report.passed()).isFalse();
        assertThat(report.table()).contains("FAILED");
    }

    @Test
    void oneTokenForTwoWorkersIsCaught() {
        cleanRun();
        hold("w2/fenced", 1002, 170, 172, 180);
        assertThat(check().violations(Invariant.TOKENS_INCREASE)).anySatisfy(v ->
                assertThat(v).contains("token 1002 issued to both"));
    }

    @Test
    void aWorkerGettingItsOwnTokenAgainIsAContinuationNotAViolation() {
        cleanRun();
        hold("w1/fenced", 1002, 170, 172, 180);
        assertThat(check().violations(Invariant.TOKENS_INCREASE)).isEmpty();
    }

    @Test
    void staleWriteAcceptedIsCaught() {
        cleanRun();
        at(170, "store", STORE_ACCEPTED, 1001, "w2/fenced");
        assertThat(check().violations(Invariant.NO_STALE_WRITE)).singleElement().asString()
                .contains("accepted token 1001").contains("after accepting 1002");
    }

    @Test
    void writeWithATokenNeverIssuedToTheWriterIsCaught() {
        cleanRun();
        at(170, "store", STORE_ACCEPTED, 5000, "w2/fenced");
        assertThat(check().violations(Invariant.NO_STALE_WRITE)).singleElement().asString()
                .contains("never issued to it");
    }

    @Test
    void wrongRejectionByTheStoreIsCaught() {
        cleanRun();
        at(170, "store", STORE_REJECTED, 1003, "w2 1002");
        assertThat(check().violations(Invariant.NO_STALE_WRITE)).singleElement().asString()
                .contains("rejected token 1003");
    }

    @Test
    void overlapWithoutAFaultIsCaughtAndExcusedNearOne() {
        cleanRun();
        hold("w3/fenced", 1003, 150, 155, 300); // enters while w1 (1002) is still inside, no fault anywhere near
        assertThat(check().violations(Invariant.NO_OVERLAP)).singleElement().asString()
                .contains("w1/fenced (token 1002").contains("w3/fenced (token 1003").contains("overlap");

        fault(120, 130, "client-kill redis");
        assertThat(check().violations(Invariant.NO_OVERLAP)).isEmpty();
    }

    @Test
    void overlapLongAfterAFaultIsNotExcused() {
        cleanRun();
        fault(-10_000, -9_000, "client-kill redis"); // over, grace (3 s) included, long before
        hold("w3/fenced", 1003, 150, 155, 300);
        assertThat(check().violations(Invariant.NO_OVERLAP)).hasSize(1);
    }

    @Test
    void deadHolderFreedLateOrNeverIsCaught() {
        cleanRun();
        at(200, "nemesis", FREED, "w1/fenced 1800");
        assertThat(check().totalViolations()).isZero();
        at(300, "nemesis", FREED, "w2/fenced 3500");
        at(400, "nemesis", NOT_FREED, "w3/fenced still held 5000 ms after the kill");
        List<String> violations = check().violations(Invariant.DEAD_HOLDER_FREED);
        assertThat(violations).hasSize(2);
        assertThat(violations.get(0)).contains("3500 ms").contains("bound 3000 ms");
    }

    /** w1 holds token 7 from t=50; frozen from t=100 to t=3100 (lease 2 s). */
    private void pausedHolder() {
        at(0, "w1/fenced", HELLO, "c1:1");
        at(40, "w1/fenced", ACQUIRE_START, "wait");
        at(50, "w1/fenced", ACQUIRED, 7, "wait");
        at(60, "w1/fenced", WRITE_START, 7, checks(60, 1900));
        at(60, "store", STORE_ACCEPTED, 7, "w1/fenced");
        at(61, "w1/fenced", WRITE_OK, 7, "");
        fault(100, 3100, "pause-holder w1/fenced");
    }

    @Test
    void pausedHolderThatLearnsOfTheLossPasses() {
        pausedHolder();
        at(3101, "w1/fenced", NOT_VALID, 7, checks(3101, 0));
        at(3102, "w1/fenced", LEASE_LOST, 7, "EXPIRED");
        at(3103, "w1/fenced", EXIT, 7, "lost");
        Report report = check();
        assertThat(report.totalViolations()).as(report.table()).isZero();
        assertThat(report.checked(Invariant.PAUSED_HOLDER_LEARNS)).isEqualTo(1);
    }

    @Test
    void pausedHolderThatStillFindsItsLeaseValidIsCaught() {
        pausedHolder();
        at(3150, "w1/fenced", WRITE_START, 7, checks(3150, 1500));
        at(3200, "w1/fenced", LEASE_LOST, 7, "EXPIRED");
        at(3250, "w1/fenced", EXIT, 7, checks(3250, 0));
        assertThat(check().violations(Invariant.PAUSED_HOLDER_LEARNS)).singleElement().asString()
                .contains("still said token 7 was valid");
    }

    @Test
    void pausedHolderNeverToldByItsListenerIsCaught() {
        pausedHolder();
        at(3101, "w1/fenced", NOT_VALID, 7, checks(3101, 0));
        at(5700, "w1/fenced", EXIT, 7, "lost");
        assertThat(check().violations(Invariant.PAUSED_HOLDER_LEARNS)).singleElement().asString()
                .contains("LeaseLostListener did not tell it");
    }

    @Test
    void silentWorkerIsCaughtUnlessFrozenByTheNemesis() {
        cleanRun();
        at(20_000, "w2/fenced", ACQUIRE_START, "wait");
        assertThat(check().violations(Invariant.NO_HANG)).singleElement().asString().contains("w2/fenced went");

        events.clear();
        cleanRun();
        fault(200, 19_000, "pause-holder w2");
        at(20_000, "w2/fenced", ACQUIRE_START, "wait");
        assertThat(check().violations(Invariant.NO_HANG)).isEmpty();

        at(21_000, "nemesis", HUNG, "w2 did not stop within 20000 ms; killed");
        assertThat(check().violations(Invariant.NO_HANG)).singleElement().asString().contains("did not stop");
    }

    @Test
    void killedWorkerEndsItsLastHoldWithoutHanging() {
        cleanRun();
        at(300, "w2/fenced", ACQUIRE_START, "wait");
        at(310, "w2/fenced", ACQUIRED, 1003, "wait");
        at(320, "nemesis", EXITED, "w2 killed");
        assertThat(check().totalViolations()).isZero();
    }

    @Test
    void failuresThatAreNotLockExceptionsOrSuccessesWithoutRedisAreCaught() {
        cleanRun();
        at(200, "w1/fenced", ACQUIRE_START, "wait");
        at(210, "w1/fenced", ACQUIRE_ERROR, "io.dlock.LockException: lock 'chaos:fenced': acquire failed: Redis did not"
                + " answer in time (Command timed out after 1 second(s))");
        assertThat(check().totalViolations()).isZero();

        at(300, "w1/fenced", ACQUIRE_START, "wait");
        at(310, "w1/fenced", ACQUIRE_ERROR, "java.lang.IllegalStateException: boom");
        at(400, "w2/fenced", ACQUIRE_START, "wait");
        at(410, "w2/fenced", ACQUIRE_ERROR, "io.dlock.LockException: lock client closed while waiting");
        at(1000, "nemesis", REDIS_DOWN, "redis-freeze");
        at(1100, "w1/fenced", ACQUIRE_START, "wait");
        at(1200, "w1/fenced", ACQUIRED, 1003, "wait");
        at(1300, "w1/fenced", EXIT, 1003, checks(1300, 1500));
        at(3000, "nemesis", REDIS_UP, "redis-freeze");
        at(3001, "w1/fenced", UNLOCKED, 1003, "");
        List<String> violations = check().violations(Invariant.REDIS_FAILURES_SURFACE);
        assertThat(violations).hasSize(3);
        assertThat(violations.get(0)).contains("not a LockException");
        assertThat(violations.get(1)).contains("does not name the lock");
        assertThat(violations.get(2)).contains("acquired").contains("while Redis could not answer");
    }

    @Test
    void leftoversAreCaught() {
        cleanRun();
        at(500, "nemesis", LEFTOVER, "key chaos:lock");
        at(500, "nemesis", LEFTOVER, "process 4242 /usr/bin/java");
        assertThat(check().violations(Invariant.NOTHING_LEFT)).containsExactly("key chaos:lock",
                "process 4242 /usr/bin/java");
    }

    @Test
    void tornLinesOfAKilledWriterAreSkipped() {
        Event event = new Event(42, "w1/fenced", ACQUIRED, 1_790_000_000_000_000L, "wait");
        String line = event.toLine();
        assertThat(Event.parse(line)).contains(event);
        for (int cut = 1; cut < line.length(); cut++) {
            assertThat(Event.parse(line.substring(0, cut))).as("torn at %d", cut).isEmpty();
        }
    }

    /** A hold on the lock of {@code kind} by loop {@code source}, known valid from acquisition to exit. */
    private void kindHold(String source, String side, long n, long acquiredMs, long exitMs) {
        at(acquiredMs - 1, source, ACQUIRE_START, "wait" + side);
        at(acquiredMs, source, ACQUIRED, n, "wait" + side + " " + checks(acquiredMs, 1900));
        at(exitMs, source, EXIT, n, checks(exitMs, 1500));
        at(exitMs + 1, source, UNLOCKED, n, "");
    }

    @Test
    void readersMayShareButAWriterOverlappingAnyHoldIsCaughtEvenUnderAFault() {
        cleanRun();
        kindHold("w1/rw", " read", 1, 200, 400);
        kindHold("w2/rw", " read", 1, 250, 450);
        kindHold("w3/plain", "", 1, 260, 300); // another lock: no conflict
        assertThat(check().totalViolations()).as(check().table()).isZero();

        kindHold("w3/rw", " write", 1, 420, 500); // overlaps w2's read hold, both known valid
        fault(410, 415, "client-kill redis");     // a fault excuses the plain overlap, not this one
        Report report = check();
        assertThat(report.violations(Invariant.NO_OVERLAP)).isEmpty();
        assertThat(report.violations(Invariant.VALID_HOLDS_EXCLUSIVE)).singleElement().asString()
                .contains("w2/rw (read hold 1)").contains("w3/rw (hold 1)").contains("Redis held both");
        assertThat(report.violations(Workload.READ_WRITE)).isEqualTo(1);
    }

    @Test
    void threadsOfOneWorkerAreOwnersOfTheirOwn() {
        cleanRun();
        kindHold("w1/plain/t0", "", 1, 200, 400);
        kindHold("w1/plain/t1", "", 1, 401, 500); // handed over locally: after t0 left
        assertThat(check().totalViolations()).as(check().table()).isZero();

        kindHold("w1/plain/t2", "", 1, 450, 600); // inside while t1 still is: same client, other owner
        Report report = check();
        assertThat(report.violations(Invariant.NO_OVERLAP)).singleElement().asString()
                .contains("w1/plain/t1 (hold 1)").contains("w1/plain/t2 (hold 1)");
        assertThat(report.violations(Invariant.VALID_HOLDS_EXCLUSIVE)).hasSize(1);
        assertThat(report.violations(Workload.PLAIN)).isEqualTo(2);
    }

    @Test
    void aHoldPastItsValidityClaimOverlapsWithoutViolationButARestartEndsEveryClaim() {
        cleanRun();
        // w1 was frozen: its last claim ends at 1200 + 100, it leaves its critical section much later
        at(1000, "w1/fair", ACQUIRE_START, "wait");
        at(1001, "w1/fair", ACQUIRED, 1, "wait " + checks(1000, 300));
        at(4000, "w1/fair", EXIT, 1, "unchecked");
        kindHold("w2/fair", "", 1, 2000, 2100);
        fault(1100, 3000, "pause-holder w1/fair");
        assertThat(check().violations(Invariant.VALID_HOLDS_EXCLUSIVE)).isEmpty();

        events.clear();
        cleanRun();
        kindHold("w1/plain", "", 1, 1000, 1500);
        kindHold("w2/plain", "", 1, 1200, 1300);
        assertThat(check().violations(Invariant.VALID_HOLDS_EXCLUSIVE)).hasSize(1);
        fault(1050, 1150, "redis-restart redis");
        at(1100, "nemesis", REDIS_DOWN, "redis-restart");
        at(1140, "nemesis", REDIS_UP, "redis-restart");
        assertThat(check().violations(Invariant.VALID_HOLDS_EXCLUSIVE)).isEmpty();
    }

    @Test
    void aMultiLockMemberTakenBeforeARestartIsNotKnownValidAfterIt() {
        cleanRun();
        // w1 took member a, Redis restarted (a lost), then w1 took b and completed; w2 then took a legitimately
        at(1000, "w1/multi/t0", ACQUIRE_START, "wait names=chaos:multi:a,chaos:multi:b");
        fault(1050, 1150, "redis-restart redis");
        at(1100, "nemesis", REDIS_DOWN, "redis-restart");
        at(1140, "nemesis", REDIS_UP, "redis-restart");
        at(1200, "w1/multi/t0", ACQUIRED, 1, "wait names=chaos:multi:a,chaos:multi:b " + checks(1200, 900));
        at(1400, "w1/multi/t0", EXIT, 1, checks(1400, 700));
        at(1199, "w2/multi/t0", ACQUIRE_START, "wait names=chaos:multi:a");
        at(1210, "w2/multi/t0", ACQUIRED, 1, "wait names=chaos:multi:a " + checks(1210, 1900));
        at(1300, "w2/multi/t0", EXIT, 1, checks(1300, 1800));
        assertThat(check().violations(Invariant.VALID_HOLDS_EXCLUSIVE)).isEmpty();

        // a hold on one key asked for before the restart was granted by the new Redis: it is still judged
        events.clear();
        cleanRun();
        at(1000, "w1/plain", ACQUIRE_START, "wait");
        fault(1050, 1150, "redis-restart redis");
        at(1100, "nemesis", REDIS_DOWN, "redis-restart");
        at(1140, "nemesis", REDIS_UP, "redis-restart");
        at(1200, "w1/plain", ACQUIRED, 1, "wait " + checks(1200, 900));
        at(1400, "w1/plain", EXIT, 1, checks(1400, 700));
        kindHold("w2/plain", "", 1, 1210, 1300);
        assertThat(check().violations(Invariant.VALID_HOLDS_EXCLUSIVE)).hasSize(1);
    }

    @Test
    void aDroppedReleaseWhoseHoldStaysIsCaughtAndAKnownDefectOnlyCountsUnlessStrict() {
        cleanRun();
        at(500, "nemesis", RELEASE_FREED, "w1/plain 190");
        assertThat(check().checked(Invariant.FAILED_RELEASE_ENDS)).isEqualTo(1);
        at(600, "nemesis", RELEASE_NOT_FREED, "w2/plain field c2:1 of chaos:plain still held 3740 ms after the"
                + " connections were cut: 1 hold(s) now, at most 1 seen, pttl 1900");
        assertThat(check().violations(Invariant.FAILED_RELEASE_ENDS)).hasSize(1);

        events.clear();
        cleanRun();
        at(600, "nemesis", RELEASE_NOT_FREED, "w2/fair field c2:1 of chaos:fair still held 3740 ms after the"
                + " connections were cut: 2 hold(s) now, at most 2 seen, pttl 1900");
        Report lenient = check();
        assertThat(lenient.totalViolations()).isZero();
        assertThat(lenient.knownDefects()).isEqualTo(1);
        assertThat(lenient.table()).contains("REENTERED_AFTER_FAILED_RELEASE");
        assertThat(history.check(true).passed()).isFalse();
    }

    @Test
    void releasesCaughtByReleaseDropAreCountedByOutcome() {
        cleanRun();
        at(1000, "nemesis", FAULT_START, "release-drop redis 900 ms past the command timeout");
        at(1001, "nemesis", REDIS_DOWN, "release-drop");
        at(1000, "w1/plain", ACQUIRE_START, "wait");
        at(1001, "w1/plain", ACQUIRED, 1, "wait " + checks(1001, 1900));
        at(1100, "w1/plain", EXIT, 1, checks(1100, 1800));
        at(1700, "w1/plain", UNLOCK_ERROR, 1, "io.dlock.LockException: lock 'chaos:plain': unlock failed");
        at(1820, "nemesis", CONNECTIONS_KILLED, "9 connections, 1 holds in Redis");
        at(1821, "nemesis", REDIS_UP, "release-drop");
        at(1822, "nemesis", FAULT_END, "release-drop");
        Report report = check();
        assertThat(report.totalViolations()).as(report.table()).isZero();
        assertThat(report.table()).contains("releases hit by release-drop: failed: timed out before the cut");
    }
}
