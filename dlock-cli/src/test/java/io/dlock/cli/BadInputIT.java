package io.dlock.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import java.time.Duration;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/** Bad input: a one-line {@code dlock: …} error and a non-zero exit, a stack trace only with --verbose. */
@Timeout(value = 90, unit = SECONDS)
class BadInputIT {

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    private static DlockProcess oneLineError(int code, String... args) {
        DlockProcess p = DlockProcess.run(args);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(code);
        assertThat(p.stderr().lines()).as(p.describe()).hasSize(1);
        assertThat(p.stderr()).as(p.describe()).startsWith("dlock: ").doesNotContain("Exception", "\tat ");
        assertThat(p.stdout()).as(p.describe()).isEmpty();
        return p;
    }

    @Test
    void unknownOption() {
        assertThat(oneLineError(2, "run", "--bogus", "job", "--", "true").stderr())
                .isEqualTo("dlock: Unknown option: '--bogus' (see 'dlock run --help')\n");
        oneLineError(2, "--bogus", "status", "job");
        oneLineError(2, "status", "--jsn", "job");
        oneLineError(2, "frobnicate");
    }

    @Test
    void malformedDuration() {
        assertThat(oneLineError(2, "run", "--wait", "5x", "job", "--", "true").stderr())
                .contains("--wait", "'5x' is not a duration");
        oneLineError(2, "run", "--lease", "-3s", "job", "--", "true");
        oneLineError(2, "run", "--lease", "0", "job", "--", "true");
        oneLineError(2, "watch", "--interval", "soon", "job");
    }

    @Test
    void leasesTooShortToStopTheCommandInTimeAreUsageErrors() {
        // issue 13, point 7: a lease far below a millisecond is a usage error (2), not an internal error (70)
        assertThat(oneLineError(2, "run", "--lease", "0.0001", "job", "--", "true").stderr())
                .contains("--lease must be at least 1s", "0ms (rounded to whole milliseconds)");
        assertThat(oneLineError(2, "run", "--lease", "0.5", "job", "--", "true").stderr())
                .contains("--lease must be at least 1s", ": 500ms");
        oneLineError(2, "run", "--lease", "999ms", "job", "--", "true");
        oneLineError(2, "run", "--watchdog", "500ms", "job", "--", "true");
    }

    @Test
    void aKillAfterLongerThanAThirdOfTheLeaseIsAUsageError() {
        assertThat(oneLineError(2, "run", "--lease", "3s", "--kill-after", "2s", "job", "--", "true").stderr())
                .contains("--kill-after 2s is too long for --lease 3s", "at most a third of the lease (1s)");
        assertThat(oneLineError(2, "run", "--kill-after", "11s", "job", "--", "true").stderr())
                .contains("--kill-after 11s is too long for --watchdog 30s");
    }

    @Test
    void malformedRedisUri() {
        assertThat(oneLineError(2, "--redis", "http://localhost:6379", "status", "job").stderr())
                .contains("not a Redis URI");
        oneLineError(2, "status", "--redis", "redis://localhost:port", "job");
        oneLineError(2, "status", "--redis", "not a uri", "job");
        DlockProcess env = DlockProcess.start(Map.of("DLOCK_REDIS", "localhost:6379"), "status", "job")
                .waitFor(Duration.ofSeconds(30));
        assertThat(env.exitCode()).as(env.describe()).isEqualTo(2);
        assertThat(env.stderr()).startsWith("dlock: DLOCK_REDIS: not a Redis URI").doesNotContain("\tat ");
    }

    @Test
    void unreachableRedis() throws IOException {
        String uri = "redis://127.0.0.1:" + freePort();
        assertThat(oneLineError(69, "status", "--redis", uri, "job").stderr())
                .startsWith("dlock: Redis unreachable: cannot connect to Redis at " + uri);
        oneLineError(69, "run", "--redis", uri, "job", "--", "true");
        oneLineError(69, "unlock", "--redis", uri, "--force", "job");
        oneLineError(69, "watch", "--redis", uri, "job");
    }

    @Test
    void verboseShowsTheStackTrace() throws IOException {
        DlockProcess p = DlockProcess.run("status", "--verbose", "--redis", "redis://127.0.0.1:" + freePort(), "job");
        assertThat(p.exitCode()).isEqualTo(69);
        assertThat(p.stderr()).startsWith("dlock: Redis unreachable: cannot connect")
                .contains("ConnectionFailedException", "\tat ");
    }

    @Test
    void missingArguments() {
        assertThat(oneLineError(2, "run", "job", "--").stderr()).contains("missing command");
        oneLineError(2, "run", "job");
        oneLineError(2, "run");
        oneLineError(2, "status");
        oneLineError(2, "watch");
        oneLineError(2);
        assertThat(oneLineError(2, "unlock", "job").stderr()).contains("--force");
        assertThat(oneLineError(2, "run", "job", "--wait", "1", "--", "true").stderr())
                .contains("options go before the lock name");
        oneLineError(2, "run", "--read", "--write", "job", "--", "true");
        oneLineError(2, "run", "--fair", "--read", "job", "--", "true");
        oneLineError(2, "run", "--on-lease-lost", "explode", "job", "--", "true");
        oneLineError(2, "run", "-E", "300", "job", "--", "true");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
