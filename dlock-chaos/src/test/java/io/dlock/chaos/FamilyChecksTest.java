package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_ERROR;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.ACQUIRE_TIMEOUT;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.PERMITS_STATE;
import static io.dlock.chaos.Event.Type.PROBE;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.SETUP;
import static io.dlock.chaos.Event.Type.SETUP_ERROR;
import static io.dlock.chaos.Event.Type.SETUP_START;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.Event.Type.UNLOCK_ERROR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Made-up histories for the checks issue 27 added: permits conserved at quiescence ({@link ConservationChecks}), the
 * latch opening only by its count-downs ({@link LatchChecks}), a multi-lock probed as one hold over its members, and
 * a run in which an invariant judged nothing failing.
 */
class FamilyChecksTest {
    private final TestHistory history = new TestHistory();

    private void setUp(String loop, long ms, boolean set) {
        history.at(ms, loop, SETUP_START, "set-permits count=3");
        history.at(ms + 1, loop, SETUP, Boolean.toString(set));
    }

    /** A semaphore hold: acquired at {@code ms}, released 100 ms later. */
    private void permit(String loop, long token, long ms) {
        history.at(ms, loop, ACQUIRE_START, "wait");
        history.at(ms + 1, loop, ACQUIRED, token, "wait " + TestHistory.checks(ms + 1, Guard.NO_LEASE_MS));
        history.at(ms + 100, loop, EXIT, token, TestHistory.checks(ms + 100, Guard.NO_LEASE_MS));
        history.at(ms + 101, loop, UNLOCKED, token, "");
    }

    private void state(long ms, Workload kind, long count, Long table) {
        history.at(ms, "nemesis", PERMITS_STATE, ConservationChecks.state(kind, count, table, table == null ? null
                : 0L));
    }

    private void restart(long downMs, long upMs) {
        history.fault(downMs - 1, upMs + 1, "redis-restart redis");
        history.at(downMs, "nemesis", REDIS_DOWN, "redis-restart");
        history.at(upMs, "nemesis", REDIS_UP, "redis-restart");
    }

    @Test
    void permitsGivenBackAddUpAndALostOrMadeUpPermitIsCaught() {
        setUp("w1/sem/t0", 10, true);
        setUp("w2/sem/t0", 11, false);
        permit("w1/sem/t0", 1, 100);
        permit("w2/sem/t0", 1, 150);
        history.at(400, "w2/sem/t0", ACQUIRE_START, "wait");
        history.at(3400, "w2/sem/t0", ACQUIRE_TIMEOUT, "wait");
        history.at(3500, "w2/sem/t0", ACQUIRE_START, "wait");
        history.at(4000, "w2/sem/t0", ACQUIRE_ERROR, "io.dlock.LockException: semaphore 'chaos:sem': timed out");
        history.at(4500, "w3/sem/t0", ACQUIRE_START, "wait"); // held by a worker killed in its hold
        history.at(4501, "w3/sem/t0", ACQUIRED, 1, "wait " + TestHistory.checks(4501, Guard.NO_LEASE_MS));
        setUp("w1/leased/t0", 10, true);
        state(9000, Workload.SEMAPHORE, 2, null);
        state(9000, Workload.LEASED, 2, 1L);
        Report report = history.check(true);
        assertThat(report.violations(Invariant.PERMITS_CONSERVED)).as(report.table()).isEmpty();
        assertThat(report.checked(Invariant.PERMITS_CONSERVED)).isEqualTo(2);

        // the failed acquisition kept a permit (issue 27 #1): one missing
        TestHistory lost = new TestHistory();
        lost.events.addAll(history.events);
        lost.events.removeIf(e -> e.type() == PERMITS_STATE);
        lost.at(9000, "nemesis", PERMITS_STATE, ConservationChecks.state(Workload.SEMAPHORE, 1, null, null));
        lost.at(9000, "nemesis", PERMITS_STATE, ConservationChecks.state(Workload.LEASED, 3, 1L, 0L));
        Report bad = lost.check(true);
        assertThat(bad.violations(Invariant.PERMITS_CONSERVED)).hasSize(2)
                .anySatisfy(v -> assertThat(v).contains("chaos:sem at quiescence: 1 available + 1 held")
                        .contains("configured 3 x 1").endsWith("permits lost"))
                .anySatisfy(v -> assertThat(v).contains("chaos:leased at quiescence: 3 available + 1 in the permit"
                        + " table = 4").endsWith("permits made up"));
        assertThat(bad.violations(Workload.SEMAPHORE)).isEqualTo(1);
    }

    @Test
    void callsOfUnknownEffectWidenTheRangeByWhatTheyMayHaveDone() {
        // failed before anything was known of the key: it may have set the permits
        history.at(5, "w4/sem/t0", SETUP_START, "set-permits count=3");
        history.at(600, "w4/sem/t0", SETUP_ERROR, "io.dlock.LockException: semaphore 'chaos:sem': timed out");
        setUp("w1/sem/t0", 10, true);
        history.at(100, "w1/sem/t0", ACQUIRE_START, "wait");
        history.at(101, "w1/sem/t0", ACQUIRED, 1, "wait");
        history.at(200, "w1/sem/t0", EXIT, 1, "unchecked");
        history.at(800, "w1/sem/t0", UNLOCK_ERROR, 1, "io.dlock.LockException: semaphore 'chaos:sem': timed out");
        history.at(900, "w2/sem/t0", SETUP_START, "set-permits count=3");
        history.at(1500, "w2/sem/t0", SETUP_ERROR, "io.dlock.LockException: semaphore 'chaos:sem': timed out");
        history.at(1600, "w3/sem/t0", ACQUIRE_START, "wait"); // killed before it answered
        // the failed set-ups set nothing (one set w1's permits: the key is made once); the exact part 3 - 1 = 2,
        // the left side 2 - 1 .. 2 + 1 (the killed acquisition, the failed release)
        for (long count = 0; count <= 4; count++) {
            TestHistory h = new TestHistory();
            h.events.addAll(history.events);
            h.at(9000, "nemesis", PERMITS_STATE, ConservationChecks.state(Workload.SEMAPHORE, count, null, null));
            assertThat(h.check(true).violations(Invariant.PERMITS_CONSERVED)).as("count %d", count)
                    .hasSize(count == 0 || count == 4 ? 1 : 0);
        }
        // with no set-up known to have set it, failed ones may have set it once: 0 or 3, not 6, nor 1 or 2
        for (long total = 0; total <= 6; total++) {
            TestHistory unknown = new TestHistory();
            for (String loop : new String[] {"w1/leased/t0", "w2/leased/t0"}) {
                unknown.at(100, loop, SETUP_START, "set-permits count=3");
                unknown.at(700, loop, SETUP_ERROR, "io.dlock.LockException: leased semaphore 'chaos:leased': timed "
                        + "out");
            }
            unknown.at(9000, "nemesis", PERMITS_STATE, ConservationChecks.state(Workload.LEASED, total / 2,
                    total - total / 2, 0L));
            List<String> violations = unknown.check(true).violations(Invariant.PERMITS_CONSERVED);
            if (total == 0 || total == 3) {
                assertThat(violations).as("total %d", total).isEmpty();
            } else {
                assertThat(violations).as("total %d", total).singleElement().asString()
                        .contains("allow 0..0 or 3..3").endsWith(total < 3 ? "permits lost, or made up if no set-up"
                                + " of unknown effect set the count" : "permits made up");
            }
        }
    }

    /**
     * The tolerance's bound: a range of unknown effect as wide as the permits would accept a semaphore that lost them
     * all (issue 27 #1), so such a semaphore is not judged, and the report says why; a narrower one still is.
     */
    @Test
    void aRangeOfUnknownEffectAsWideAsThePermitsIsNotJudged() {
        setUp("w1/sem/t0", 10, true);
        for (int i = 0; i < 3; i++) {
            // cut short by a kill: each may have taken a permit
            history.at(100 + i, "w" + (2 + i) + "/sem/t0", ACQUIRE_START, "wait");
        }
        setUp("w1/leased/t0", 10, true);
        state(9000, Workload.SEMAPHORE, 0, null); // every permit lost, or taken by the three: nobody can tell
        state(9000, Workload.LEASED, 3, 0L);
        Report report = history.check(true);
        assertThat(report.violations(Invariant.PERMITS_CONSERVED)).isEmpty();
        assertThat(report.checked(Invariant.PERMITS_CONSERVED)).as("the leased semaphore alone").isEqualTo(1);
        assertThat(report.table()).contains("chaos:sem at quiescence not judged: 3 call(s) of unknown effect allow "
                + "0..3 for 0 found, a range of 3 permits or more on one side (-3, +0)");

        TestHistory two = new TestHistory();
        two.events.addAll(history.events);
        two.events.removeIf(e -> e.type() == PERMITS_STATE || "w4/sem/t0".equals(e.source()));
        two.at(9000, "nemesis", PERMITS_STATE, ConservationChecks.state(Workload.SEMAPHORE, 0, null, null));
        assertThat(two.check(true).violations(Invariant.PERMITS_CONSERVED)).as("two unknown calls: judged")
                .singleElement().asString().contains("allow 1..3").endsWith("permits lost");
    }

    @Test
    void aReleaseThatTimedOutWhileRedisWasOnlySlowRanAndOneCutShortMayNotHave() {
        setUp("w1/sem/t0", 10, true);
        history.at(100, "w1/sem/t0", ACQUIRE_START, "wait");
        history.at(101, "w1/sem/t0", ACQUIRED, 1, "wait");
        history.at(200, "w1/sem/t0", EXIT, 1, "unchecked");
        history.fault(150, 2500, "command-stall redis 300 ms then 1000 ms");
        history.at(800, "w1/sem/t0", UNLOCK_ERROR, 1, "io.dlock.LockException: semaphore 'chaos:sem': release failed:"
                + " Redis did not answer in time");
        state(9000, Workload.SEMAPHORE, 2, null); // it ran after the stall: 3, one permit lost
        Report report = history.check(true);
        assertThat(report.violations(Invariant.PERMITS_CONSERVED)).singleElement().asString()
                .contains("2 available + 0 held").contains("1 release(s) that timed out while Redis was only slow")
                .endsWith("permits lost");

        TestHistory cut = new TestHistory();
        cut.events.addAll(history.events);
        cut.fault(900, 901, "client-kill redis"); // the connection cut in the grace after it: it may not have run
        assertThat(cut.check(true).violations(Invariant.PERMITS_CONSERVED)).isEmpty();
    }

    @Test
    void aRestartStartsTheCountAgainAndAHolderAcrossItGivesBackOneMore() {
        setUp("w1/sem/t0", 10, true);
        history.at(100, "w1/sem/t0", ACQUIRE_START, "wait");
        history.at(101, "w1/sem/t0", ACQUIRED, 1, "wait");
        permit("w2/sem/t0", 1, 150); // over before the restart: lost with the data
        restart(500, 900);
        setUp("w2/sem/t0", 1000, true);
        history.at(1200, "w1/sem/t0", EXIT, 1, "unchecked");
        history.at(1201, "w1/sem/t0", UNLOCKED, 1, ""); // the documented allowance: 3 + 1
        // sent before the kill, answered once the new server was up: it took its permit there (its worker was
        // killed later, in its hold)
        history.at(450, "w3/sem/t0", ACQUIRE_START, "wait");
        history.at(950, "w3/sem/t0", ACQUIRED, 1, "wait");
        setUp("w1/leased/t0", 10, true);
        setUp("w1/leased/t0", 1000, true);
        state(9000, Workload.SEMAPHORE, 3, null);
        state(9000, Workload.LEASED, 3, 0L);
        Report report = history.check(true);
        assertThat(report.violations(Invariant.PERMITS_CONSERVED)).as(report.table()).isEmpty();
    }

    private void latchSet(String loop, long ms, String name, boolean set) {
        history.at(ms, loop, SETUP_START, "set-count name=" + name + " count=3");
        history.at(ms + 1, loop, SETUP, Boolean.toString(set));
    }

    private void countDown(String loop, long ms, String name) {
        history.at(ms, loop, ACQUIRE_START, "countdown name=" + name);
        history.at(ms + 1, loop, ACQUIRED, "countdown name=" + name);
    }

    private void await(String loop, long fromMs, long toMs, String name, Event.Type how) {
        history.at(fromMs, loop, ACQUIRE_START, "await name=" + name + " waitMs=1000");
        history.at(toMs, loop, how, how == ACQUIRE_ERROR ? "io.dlock.LockException: count-down latch '" + name
                + "': lost" : "await name=" + name);
    }

    @Test
    void aLatchOpensOnlyAfterItsCountDownsAndAnAwaitAcrossARestartMustNotAnswerTrue() {
        latchSet("w1/latch/t0", 0, "chaos:latch:1", true);
        latchSet("w2/latch/t0", 5, "chaos:latch:1", false);
        await("w1/latch/t1", 400, 900, "chaos:latch:1", ACQUIRED);
        countDown("w2/latch/t0", 500, "chaos:latch:1");
        countDown("w3/latch/t0", 600, "chaos:latch:1");
        countDown("w3/latch/t1", 700, "chaos:latch:1");
        Report clean = history.check(true);
        assertThat(clean.violations(Invariant.LATCH_OPENS_BY_COUNT_DOWNS)).as(clean.table()).isEmpty();
        assertThat(clean.checked(Invariant.LATCH_OPENS_BY_COUNT_DOWNS)).isEqualTo(1);

        // an await that answered true before the third count-down was even sent
        latchSet("w1/latch/t0", 2000, "chaos:latch:2", true);
        countDown("w2/latch/t0", 2500, "chaos:latch:2");
        countDown("w3/latch/t0", 2600, "chaos:latch:2");
        await("w1/latch/t1", 2400, 2650, "chaos:latch:2", ACQUIRED);
        countDown("w3/latch/t1", 2700, "chaos:latch:2");
        assertThat(history.check(true).violations(Invariant.LATCH_OPENS_BY_COUNT_DOWNS)).singleElement().asString()
                .contains("w1/latch/t1 await of chaos:latch:2").contains("only 2 of its 3 count-downs");

        // issue 27 #6: Redis restarts under an awaiter; answering true is a violation, failing is a reported loss
        latchSet("w1/latch/t0", 4000, "chaos:latch:3", true);
        countDown("w2/latch/t0", 4500, "chaos:latch:3");
        await("w1/latch/t1", 4400, 5200, "chaos:latch:3", ACQUIRED);
        await("w2/latch/t1", 4400, 5200, "chaos:latch:3", ACQUIRE_ERROR);
        restart(4700, 4900);
        countDown("w3/latch/t0", 5000, "chaos:latch:3");
        countDown("w3/latch/t1", 5100, "chaos:latch:3"); // after the loss: they cannot open it
        await("w2/latch/t2", 5050, 5060, "chaos:latch:3", ACQUIRED); // began on the lost latch: not judged
        // the loss counts from the kill's start: an await begun while the kill was under way (before REDIS_DOWN is
        // recorded) may already have met the new server only (its client saw the drop), so it is not judged
        latchSet("w1/latch/t0", 5800, "chaos:latch:4", true);
        history.fault(6000, 6300, "redis-restart redis");
        await("w2/latch/t3", 6005, 6400, "chaos:latch:4", ACQUIRED);
        history.at(6010, "nemesis", REDIS_DOWN, "redis-restart");
        history.at(6200, "nemesis", REDIS_UP, "redis-restart");
        Report report = history.check(true);
        assertThat(report.violations(Invariant.LATCH_OPENS_BY_COUNT_DOWNS)).hasSize(2)
                .anySatisfy(v -> assertThat(v).contains("w1/latch/t1 await of chaos:latch:3")
                        .contains("only 1 of its 3").contains("before the Redis restart"));
        assertThat(report.violations(Workload.LATCH)).isEqualTo(2);
        assertThat(report.table()).contains("latch: awaits failed (a reported loss, or Redis failed)")
                .contains("latch lost in a restart before they began (not judged)");
        // a lenient run lists the one across the restart apart, as the open known defect it is
        Report lenient = history.check(false);
        assertThat(lenient.violations(Invariant.LATCH_OPENS_BY_COUNT_DOWNS)).hasSize(1);
        assertThat(lenient.knownDefects()).isEqualTo(1);
        assertThat(lenient.table()).contains("LATCH_OPENED_BY_DATA_LOSS");
    }

    @Test
    void aMultiLockProbeThatMissesOneMemberIsCaught() {
        String loop = "w1/multi/t0";
        history.at(999, loop, ACQUIRE_START, "wait names=chaos:multi:a,chaos:multi:b");
        history.at(1000, loop, ACQUIRED, 1, "wait names=chaos:multi:a,chaos:multi:b "
                + TestHistory.checks(1000, 1900));
        history.at(1002, loop, PROBE, 1, "absent field=c1:1 sentAt=" + 1001 * TestHistory.MS
                + " missing=field:chaos:multi:b");
        history.at(1100, loop, EXIT, 1, TestHistory.checks(1100, 1800));
        history.at(1101, loop, UNLOCKED, 1, "");
        Report report = history.check(true);
        assertThat(report.violations(Invariant.HOLD_IN_REDIS)).singleElement().asString()
                .contains("w1/multi/t0 (hold 1)").contains("missing=field:chaos:multi:b");
    }

    @Test
    void anInvariantThatJudgedNoCaseFailsTheRunWithNoViolation() {
        permit("w1/sem/t0", 1, 100);
        Report report = history.check(true);
        assertThat(report.totalViolations()).isZero();
        assertThat(report.passed()).isFalse();
        assertThat(report.unjudged()).contains(Invariant.LATCH_OPENS_BY_COUNT_DOWNS, Invariant.PERMITS_CONSERVED);
        assertThat(report.table()).contains("invariant(s) judged no case");
    }
}
