package io.dlock.chaos;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos suite against real processes: worker JVMs (each with several owners on the plain, fair, read-write and
 * fenced locks), a faulted redis-server, the fencing store and the nemesis.
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
            assertThat(report.events(kind, Event.Type.UNLOCKED)).as("%s releases", kind.label()).isPositive();
        }
        for (Fault fault : Fault.values()) {
            if (fault != Fault.DEBUG_SLEEP) {
                assertThat(report.injected(fault)).as("%s injected", fault.label()).isPositive();
            }
        }
    }
}
