package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Credentials never appear in what dlock prints nor in the environment of the command {@code dlock run} starts
 * (issue 13, point 10), with a real ACL user whose password holds {@code / @ %}, a space and both quotes.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 90, unit = SECONDS)
class CredentialsIT {
    private static final String PASSWORD = "hunter2/with@odd%chars \"and' spaces";
    /** The password and the parts of it a naive URI parser would cut it into. */
    private static final List<String> RECOGNISABLE = List.of(PASSWORD, encoded(PASSWORD), "hunter2", "with@odd",
            "odd%chars", "chars \"and", "and' spaces", encoded("odd%chars"));

    private String uri;

    @BeforeEach
    void createUser(RedisServer redis) {
        RedisClient raw = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.sync().aclSetuser("alice", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword(PASSWORD)
                    .allKeys().allChannels().allCommands());
        } finally {
            raw.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        uri = "redis://alice:" + encoded(PASSWORD) + "@127.0.0.1:" + redis.port();
    }

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    @Test
    void statusAndJsonShowTheLockButNotThePassword(LockClient client) {
        client.getLock("job").lock();
        DlockProcess text = DlockProcess.run("status", "--redis", uri, "job");
        assertThat(text.exitCode()).as(text.describe()).isZero();
        assertThat(text.stdout()).contains("state    locked");
        assertNoSecret(text);
        DlockProcess json = DlockProcess.run("status", "--json", "--redis", uri, "job");
        assertThat(json.exitCode()).as(json.describe()).isZero();
        assertThat(json.stdout()).contains("\"locked\":true");
        assertNoSecret(json);
        DlockProcess verbose = DlockProcess.run("-v", "status", "--redis", uri, "job");
        assertThat(verbose.exitCode()).as(verbose.describe()).isZero();
        assertNoSecret(verbose);
    }

    @Test
    void theCommandOfARunDoesNotInheritTheCredentials() {
        DlockProcess p = DlockProcess.start(Map.of("DLOCK_REDIS", uri), "run", "--lease", "20s", "job", "env")
                .waitFor(Duration.ofSeconds(30));
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).as("the command's environment").contains("PATH=").doesNotContain("DLOCK_REDIS=");
        assertNoSecret(p);
        DlockProcess option = DlockProcess.run("run", "--redis", uri, "job", "env");
        assertThat(option.exitCode()).as(option.describe()).isZero();
        assertNoSecret(option);
    }

    @Test
    void aRunWithoutCredentialsPassesDlockRedisOn(RedisServer redis) {
        DlockProcess p = DlockProcess.start(Map.of("DLOCK_REDIS", redis.uri()), "run", "job", "env")
                .waitFor(Duration.ofSeconds(30));
        assertThat(p.exitCode()).as(p.describe()).isZero();
        assertThat(p.stdout()).contains("DLOCK_REDIS=" + redis.uri() + "\n");
    }

    @Test
    void failuresDoNotEchoThePassword(RedisServer redis) throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String unreachable = "redis://alice:" + encoded(PASSWORD) + "@127.0.0.1:" + closed;
        DlockProcess run = DlockProcess.run("run", "--redis", unreachable, "job", "true");
        assertThat(run.exitCode()).as(run.describe()).isEqualTo(69);
        assertNoSecret(run);
        DlockProcess verbose = DlockProcess.run("-v", "run", "--redis", unreachable, "job", "true");
        assertThat(verbose.exitCode()).as(verbose.describe()).isEqualTo(69);
        assertNoSecret(verbose);

        // not percent-encoded: not a valid URI, and the message must not echo it
        String raw = "redis://alice:" + PASSWORD + "@127.0.0.1:" + redis.port();
        DlockProcess bad = DlockProcess.run("status", "--redis", raw, "job");
        assertThat(bad.exitCode()).as(bad.describe()).isEqualTo(2);
        assertNoSecret(bad);
        DlockProcess badEnv = DlockProcess.start(Map.of("DLOCK_REDIS", raw), "run", "job", "true")
                .waitFor(Duration.ofSeconds(30));
        assertThat(badEnv.exitCode()).as(badEnv.describe()).isEqualTo(2);
        assertNoSecret(badEnv);

        String wrong = "redis://alice:" + encoded(PASSWORD + "x") + "@127.0.0.1:" + redis.port();
        DlockProcess denied = DlockProcess.run("-v", "status", "--redis", wrong, "job");
        assertThat(denied.exitCode()).as(denied.describe()).isNotZero();
        assertNoSecret(denied);
    }

    @Test
    void watchDoesNotShowThePassword() {
        DlockProcess p = DlockProcess.start("watch", "--redis", uri, "job");
        Await.until(Duration.ofSeconds(20), () -> p.stdout().contains("job: free"), p::describe);
        p.kill();
        assertNoSecret(p);
    }

    private static void assertNoSecret(DlockProcess p) {
        for (String part : RECOGNISABLE) {
            assertThat(p.stdout()).as(p.describe()).doesNotContain(part);
            assertThat(p.stderr()).as(p.describe()).doesNotContain(part);
        }
    }

    private static String encoded(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
