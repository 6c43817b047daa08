package io.dlock.cli;

import io.dlock.redisprocess.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code dlock demo}: runs to completion with every check passing (the lock kinds, the semaphore, the count-down latch
 * and the multi-lock), and cleans up when interrupted.
 */
@Timeout(value = 120, unit = SECONDS)
class DemoIT {

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void runsToCompletionAndExitsZero() {
        long start = System.nanoTime();
        DlockProcess demo = DlockProcess.run(Duration.ofSeconds(100), "demo");
        String out = demo.stdout();
        assertThat(demo.exitCode()).as(demo.describe()).isZero();
        assertThat(Await.millisSince(start)).as("demo time, ms").isLessThan(60_000);
        assertThat(out).contains("1. Mutual exclusion", "counter = 400 (expected 400)", "2. Reentrancy",
                "3. Watchdog", "4. Crash", "5. Fair lock", "6. Read-write lock", "7. Semaphore", "8. Count-down latch",
                "9. Multi-lock", "9 passed, 0 failed");
        // the checks of the semaphore, latch and multi-lock scenarios, with their numbers
        assertThat(out).contains("ok    every acquisition got in (120 of 120)",
                "ok    all 3 permits back afterwards (available: 3)",
                "ok    no awaiter passed before the last count-down (passed early: 0 of 4",
                "ok    each saw 3 count-downs done as it passed (saw: 3, 3, 3, 3)",
                "ok    every round got in, no deadlock (120 of 120, 0 failed)",
                "ok    all or nothing: not taken, and B not kept");
        assertThat(out).containsPattern("ok    at most 3 inside at once \\(most seen: [123]\\)");
        assertThat(out).doesNotContain("FAIL");
        for (int scenario = 1; scenario <= 9; scenario++) {
            assertThat(verdict(out, scenario)).as("scenario %d of\n%s", scenario, out).isEqualTo("PASS");
        }
    }

    /** The "=> …" verdict that ends scenario {@code n}. */
    private static String verdict(String out, int n) {
        Matcher m = Pattern.compile("(?ms)^" + n + "\\. .*?^   => (PASS|FAIL)").matcher(out);
        return m.find() ? m.group(1) : "(no verdict)";
    }

    @Test
    void sigtermStopsTheChildJvmsAndRedis() {
        DlockProcess demo = DlockProcess.start("demo");
        // wait until the worker JVMs of the first scenario run
        Await.until(Duration.ofSeconds(60), () -> demo.process.descendants()
                        .filter(h -> h.info().commandLine().orElse("").contains("DemoWorker")).count() >= 2,
                demo::describe);
        List<ProcessHandle> descendants = demo.process.descendants().toList();
        assertThat(descendants).anyMatch(h -> h.info().commandLine().orElse("").contains("redis"));
        demo.process.destroy(); // SIGTERM
        demo.waitFor(Duration.ofSeconds(20));
        Await.until(Duration.ofSeconds(10), () -> descendants.stream().noneMatch(ProcessHandle::isAlive),
                () -> "left running: " + descendants.stream().filter(ProcessHandle::isAlive)
                        .map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList());
    }
}
