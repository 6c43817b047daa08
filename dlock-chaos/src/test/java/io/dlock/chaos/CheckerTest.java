package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
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
    private static final long MS = 1_000_000L;
    private static final long LEASE_MS = 2000;
    private static final Checker.Bounds BOUNDS = new Checker.Bounds(LEASE_MS, LEASE_MS + 1000, 2500, 10_000);
    

    private final List<Event> events = new ArrayList<>();

    private void at(long ms, String source, Event.Type type, long token, String detail) {
        events.add(new Event(ms * MS, source, type, token, detail));
    }

    private void at(long ms, String source, Event.Type type, String detail) {
        at(ms, source, type, Event.NO_TOKEN, detail);
    }

    private static String checks(long atMs, long validMs) {
        return "checkedAt=" + atMs * MS + " validMs=" + validMs;
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
        at(startMs, "nemesis", FAULT_START, what);
        at(endMs, "nemesis", FAULT_END, what.split(" ")[0]);
    }

    private Report check() {
        ChaosSettings settings = new ChaosSettings(Duration.ofSeconds(1), 1, 3, LEASE_MS, 1000, 80, Path.of("unused"));
        return new Checker(BOUNDS).check(events, Map.of(), settings, "test", Duration.ZERO);
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
        Report report = check();
        assertThat(report.passed()).as(report.table()).isTrue();
        assertThat(report.checked(Invariant.TOKENS_INCREASE)).isEqualTo(3);
        assertThat(report.checked(Invariant.NO_STALE_WRITE)).isEqualTo(3);
        assertThat(report.table()).contains("PASSED");
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
        assertThat(check().passed()).isTrue();
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
        assertThat(report.passed()).as(report.table()).isTrue();
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
        assertThat(check().passed()).isTrue();
    }

    @Test
    void failuresThatAreNotLockExceptionsOrSuccessesWithoutRedisAreCaught() {
        cleanRun();
        at(200, "w1/fenced", ACQUIRE_START, "wait");
        at(210, "w1/fenced", ACQUIRE_ERROR, "io.dlock.LockException: lock 'chaos:fenced': acquire failed: Redis did not"
                + " answer in time (Command timed out after 1 second(s))");
        assertThat(check().passed()).isTrue();

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
}
