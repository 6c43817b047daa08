package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;
import org.junit.jupiter.api.Test;

import static io.dlock.chaos.Event.Type.ACQUIRED;
import static io.dlock.chaos.Event.Type.ACQUIRE_START;
import static io.dlock.chaos.Event.Type.EXIT;
import static io.dlock.chaos.Event.Type.HELLO;
import static io.dlock.chaos.Event.Type.PROBE;
import static io.dlock.chaos.Event.Type.REDIS_DOWN;
import static io.dlock.chaos.Event.Type.REDIS_UP;
import static io.dlock.chaos.Event.Type.STEP;
import static io.dlock.chaos.Event.Type.UNLOCKED;
import static io.dlock.chaos.TestHistory.MS;
import static io.dlock.chaos.TestHistory.checks;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Invariant#HOLD_IN_REDIS} on made-up histories: an owner inside, claimed valid, whose probe finds no hold in
 * Redis is caught; a probe Redis did not answer, one answered after the claim ran out, and a hold lost in a Redis
 * restart are not violations.
 */
class RedisHoldChecksTest {
    private final TestHistory history = new TestHistory();

    private void at(long ms, String source, Event.Type type, long token, String detail) {
        history.at(ms, source, type, token, detail);
    }

    private void at(long ms, String source, Event.Type type, String detail) {
        history.at(ms, source, type, detail);
    }

    private Report check() {
        return history.check();
    }

    /** The loops' HELLOs, a history's first events (times are counted from them). */
    private void greetings() {
        history.at(0, "w1/plain/t0", HELLO, "c1:0");
        history.at(0, "w2/fair/t0", HELLO, "c2:0");
    }

    /** A probe of {@code source}'s hold {@code n} answered at {@code ms}: held, absent or unknown. */
    private void probe(long ms, String source, long n, String verdict) {
        at(ms, source, PROBE, n, verdict + " field=c1:" + source.charAt(source.length() - 1) + " sentAt="
                + (ms - 1) * MS + (verdict.equals("absent") ? " missing=field" : verdict.equals("unknown")
                ? " error=java.net.SocketTimeoutException: Read timed out" : ""));
    }

    /** Loop {@code source}'s hold {@code n}: claimed valid 1900 ms at acquisition, a step, a probe after each. */
    private void probedHold(String source, long n, long acquiredMs, String firstProbe, String secondProbe) {
        at(acquiredMs - 1, source, ACQUIRE_START, "wait");
        at(acquiredMs, source, ACQUIRED, n, "wait " + checks(acquiredMs, 1900));
        probe(acquiredMs + 2, source, n, firstProbe);
        at(acquiredMs + 50, source, STEP, n, checks(acquiredMs + 50, 1850));
        probe(acquiredMs + 52, source, n, secondProbe);
        at(acquiredMs + 100, source, EXIT, n, checks(acquiredMs + 100, 1800));
        at(acquiredMs + 101, source, UNLOCKED, n, "");
    }

    @Test
    void anOwnerInsideWhoseHoldRedisDoesNotHaveIsCaught() {
        greetings();
        probedHold("w1/plain/t0", 1, 1000, "held", "unknown"); // Redis did not answer: proves nothing
        probedHold("w1/rw/t1", 1, 1000, "held", "held");
        // a claim of 50 ms, long over when Redis answered: the lease may have run out (frozen holder)
        at(1999, "w2/fair/t0", ACQUIRE_START, "wait");
        at(2000, "w2/fair/t0", ACQUIRED, 1, "wait " + checks(2000, 50));
        probe(2300, "w2/fair/t0", 1, "absent");
        at(2301, "w2/fair/t0", EXIT, 1, "lost");
        // no claim at all: the careless holder's only check found the lease gone
        at(2399, "w2/fair/t0", ACQUIRE_START, "wait");
        at(2400, "w2/fair/t0", ACQUIRED, 2, "wait unchecked " + checks(2400, 0));
        probe(2450, "w2/fair/t0", 2, "absent");
        at(2451, "w2/fair/t0", EXIT, 2, "unchecked");
        Report clean = check();
        assertThat(clean.totalViolations()).as(clean.table()).isZero();
        assertThat(clean.checked(Invariant.HOLD_IN_REDIS)).isEqualTo(6);
        assertThat(clean.table()).contains("probes: Redis did not answer (unknown)")
                .contains("probes: hold absent after its validity claim ran out (not judged)");

        probedHold("w1/plain/t1", 2, 3000, "held", "absent"); // handed over, then gone while claimed valid
        Report report = check();
        assertThat(report.violations(Invariant.HOLD_IN_REDIS)).singleElement().asString()
                .contains("w1/plain/t1 (hold 2), acquired t=3000ms").contains("claimed valid until t=4900ms")
                .contains("absent field=c1:1 missing=field").contains("answered by t=3052ms");
        assertThat(report.violations(Workload.PLAIN)).isEqualTo(1);
        assertThat(report.passed()).isFalse();
    }

    @Test
    void aHoldLostInARedisRestartIsNoViolationButOneTakenAfterItIs() {
        greetings();
        history.fault(1020, 1200, "redis-restart redis");
        history.at(1030, "nemesis", REDIS_DOWN, "redis-restart");
        history.at(1190, "nemesis", REDIS_UP, "redis-restart");
        probedHold("w1/fenced/t0", 2000, 1000, "held", "absent"); // acquired before the restart: its data was lost
        Report report = check();
        assertThat(report.violations(Invariant.HOLD_IN_REDIS)).isEmpty();
        assertThat(report.table()).contains("probes: hold absent after a Redis restart (data lost, exempt)");

        probedHold("w2/fenced/t0", 2001, 1500, "absent", "held"); // requested after the restart: nothing excuses it
        assertThat(check().violations(Invariant.HOLD_IN_REDIS)).singleElement().asString()
                .contains("w2/fenced/t0 (token 2001)");
    }
}
