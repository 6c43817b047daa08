package io.dlock.cli;

import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisBinary;
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

    /**
     * The whole demo on the server line of the run (CI runs this class on each: Redis 6.2, 7.x, 8.0 and Valkey 8.1),
     * named with {@code --server} as a user who fetched one with {@code .ci/server-lines} would.
     */
    @Test
    void runsToCompletionAndExitsZero() {
        long start = System.nanoTime();
        DlockProcess demo = DlockProcess.run(Duration.ofSeconds(100), "demo", "--server",
                RedisBinary.resolve().toString());
        String out = demo.stdout();
        assertThat(demo.exitCode()).as(demo.describe()).isZero();
        assertThat(out).containsPattern("dlock demo: started (Redis|Valkey) \\d+\\.\\d+\\.\\d+ at redis://");
        assertThat(Await.millisSince(start)).as("demo time, ms").isLessThan(60_000);
        assertThat(out).contains("1. Mutual exclusion", "counter = 400 (expected 400)", "2. Reentrancy",
                "3. Watchdog", "4. Crash", "5. Fair lock", "6. Read-write lock", "7. Semaphore", "8. Count-down latch",
                "9. Multi-lock", "10. Leader election", "10 passed, 0 failed");
        // the checks of the semaphore, latch and multi-lock scenarios, with their numbers
        assertThat(out).contains("ok    every acquisition got in (120 of 120)",
                "ok    all 3 permits back afterwards (available: 3)",
                "ok    no awaiter passed before the last count-down (passed early: 0 of 4",
                "ok    each saw 3 count-downs done as it passed (saw: 3, 3, 3, 3)",
                "ok    every round got in, no deadlock (120 of 120, 0 failed)",
                "ok    all or nothing: not taken, and B not kept",
                "ok    each new leader's epoch above the last (4 terms)");
        assertThat(out).containsPattern(
                "ok    one leader at a time while Redis kept the key \\(overlaps: 0 of \\d+ samples\\)");
        assertThat(out).containsPattern(
                "ok    fenced register: no write refused while Redis kept the key \\(\\d+ accepted, 0 refused\\)");
        assertThat(out).containsPattern("ok    at most 3 inside at once \\(most seen: [123]\\)");
        assertThat(out).doesNotContain("FAIL");
        for (int scenario = 1; scenario <= 10; scenario++) {
            assertThat(verdict(out, scenario)).as("scenario %d of\n%s", scenario, out).isEqualTo("PASS");
        }
    }

    @Test
    void serverMustBeAnExecutableAndExcludesRedis() {
        DlockProcess missing = DlockProcess.run(Duration.ofSeconds(30), "demo", "--server", "/nonexistent/redis-server");
        assertThat(missing.exitCode()).as(missing.describe()).isEqualTo(2);
        assertThat(missing.stderr()).contains("--server /nonexistent/redis-server is not an executable file");
        DlockProcess both = DlockProcess.run(Duration.ofSeconds(30), "demo", "--server",
                RedisBinary.resolve().toString(), "--redis", "redis://127.0.0.1:1");
        assertThat(both.exitCode()).as(both.describe()).isEqualTo(2);
        assertThat(both.stderr()).contains("dlock demo takes --server or --redis, not both");
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
