package io.dlock.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's score: one failed check fails its scenario and makes the demo exit 1. */
class DemoReportTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DemoReport report = new DemoReport(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    @Test
    void everyCheckPassedExitsZero() {
        report.beginScenario("7. Semaphore");
        report.check("at most 3 inside at once (most seen: 3)", true);
        report.endScenario(true, 12);
        report.summary(12);

        assertThat(report.exitCode()).isZero();
        assertThat(out()).contains("   ok    at most 3 inside at once (most seen: 3)", "   => PASS",
                "dlock demo: 1 passed, 0 failed");
    }

    @Test
    void aFailedCheckFailsItsScenarioAndTheExitCode() {
        report.beginScenario("7. Semaphore");
        report.check("at most 3 inside at once (most seen: 4)", false);
        report.check("all 3 permits back afterwards (available: 3)", true);
        report.endScenario(true, 12);
        report.beginScenario("8. Count-down latch");
        report.check("each saw 3 count-downs done as it passed (saw: 3, 3)", true);
        report.endScenario(true, 5);
        report.summary(17);

        assertThat(report.exitCode()).isEqualTo(ExitCodes.FAILED).isEqualTo(1);
        assertThat(out()).contains("   FAIL  at most 3 inside at once (most seen: 4)", "   => FAIL",
                "dlock demo: 1 passed, 1 failed");
    }

    @Test
    void aScenarioThatGaveUpOrMadeNoCheckFails() {
        report.beginScenario("9. Multi-lock");
        report.check("never two holders inside at once (0 overlaps seen)", true);
        report.endScenario(false, 1);
        report.beginScenario("10. Nothing checked");
        report.endScenario(true, 1);

        assertThat(report.exitCode()).isEqualTo(1);
        assertThat(out()).doesNotContain("=> PASS");
    }

    private String out() {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
