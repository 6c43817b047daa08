package io.dlock.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite against real processes: worker JVMs (each with several owners on every lock kind, both semaphores,
 * the multi-lock and the latch rounds), a faulted redis-server, the fencing store and the nemesis.
 * Short mode in {@code mvn verify} (one minute of faults, every kind at least once); the long mode with
 * {@code -Dchaos.minutes=N} (see README.md). The JUnit timeout is left to failsafe's: a run bounds itself.
 */
class ChaosIT {

    @Test
    void noInvariantIsViolatedUnderFaults() {
        ChaosSettings settings = ChaosMain.fromProperties(Path.of("target", "chaos"));
        Report report = new ChaosRun(settings).run();
        System.out.print(report.table());

        assertThat(report.violations(Checker.Invariant.TOKENS_INCREASE)).isEmpty();
        assertThat(report.passed()).as("%s", report.table()).isTrue();
        // the run did exercise what it checks
        assertThat(report.events(Event.Type.ACQUIRED)).isPositive();
        assertThat(report.events(Event.Type.STORE_ACCEPTED)).isPositive();
        for (Workload kind : Workload.values()) {
            assertThat(report.events(kind, Event.Type.ACQUIRED)).as("%s acquisitions", kind.label()).isPositive();
            if (kind.holds()) {
                assertThat(report.events(kind, Event.Type.UNLOCKED)).as("%s releases", kind.label()).isPositive();
            }
        }
        String only = System.getProperty("chaos.faults", "").strip();
        boolean all = only.isEmpty() || only.startsWith("${"); // -Dchaos.faults limits the nemesis (a reproduction)
        for (Fault fault : Fault.values()) {
            if (fault != Fault.DEBUG_SLEEP && (all || List.of(only.split(",")).contains(fault.label()))) {
                assertThat(report.injected(fault)).as("%s injected", fault.label()).isPositive();
            }
        }
        // every invariant judged a case (passed() says so too; named here for the message)
        assertThat(report.unjudged()).as("invariants that judged no case").isEmpty();
        // the command stalls, shorter and longer than the command timeout, met calls of every family kind
        for (Workload kind : List.of(Workload.SEMAPHORE, Workload.LEASED, Workload.LATCH, Workload.MULTI)) {
            assertThat(report.kindCount(kind, FaultReach.SHORT_STALLS_MET)).as("%s: %s", kind.label(),
                    FaultReach.SHORT_STALLS_MET).isPositive();
            assertThat(report.kindCount(kind, FaultReach.LONG_STALLS_MET)).as("%s: %s", kind.label(),
                    FaultReach.LONG_STALLS_MET).isPositive();
        }
    }
}
