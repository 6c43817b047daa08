package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.RedisServer;
import io.lettuce.core.AclSetuserArgs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Credentials never leak (issue 13.10, library side): not in exception messages (nor their causes), not in
 * {@code toString()} of the config or the client, not in log lines; with a password that holds {@code /}, {@code @},
 * {@code %}, a space and both quotes, given percent-encoded (the form that works) or raw (a URI that does not parse).
 */
@Timeout(value = 60, unit = SECONDS)
class CredentialsIT {
    /** Starts and ends with markers, so any fragment of it that leaks is seen. */
    static final String PASSWORD = "S3cr/t@x%y z\"q'Kx9";
    static final String USER = "dlock-app";
    static final List<String> FRAGMENTS = List.of("S3cr", "Kx9", "t@x", "y z", PASSWORD, encoded(PASSWORD));

    static RedisServer redis;

    @BeforeAll
    static void startServerWithUsers() {
        redis = RedisServer.start();
        try (RawRedis raw = RawRedis.connect(redis.uri())) {
            raw.sync().aclSetuser(USER, AclSetuserArgs.Builder.on().addPassword(PASSWORD).allKeys().allChannels()
                    .allCommands());
            // may not run INFO: the client logs a warning naming where it connected
            raw.sync().aclSetuser("no-info", AclSetuserArgs.Builder.on().addPassword(PASSWORD).allKeys()
                    .allChannels().allCommands().removeCommand(io.lettuce.core.protocol.CommandType.INFO));
        }
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
    }

    static String encoded(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) b;
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.') {
                out.append(c);
            } else {
                out.append(String.format("%%%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    static String uri(String user, String password) {
        return "redis://" + user + ":" + password + "@" + redis.host() + ":" + redis.port();
    }

    @Test
    void aPercentEncodedPasswordConnectsAndNeverShowsInToString() {
        String uri = uri(USER, encoded(PASSWORD));
        LockClientConfig config = LockClientConfig.builder().redisUri(uri).build();
        String logged = capturingStdErr(() -> {
            try (LockClient client = LockClient.create(config)) {
                DistributedLock lock = client.getLock("credentials");
                lock.lock();
                lock.unlock();
                assertNoSecret(client.toString());
                assertThat(client.toString()).contains(redis.host() + ":" + redis.port());
            }
            return null;
        });
        assertNoSecret(config.toString());
        assertNoSecret(config.toBuilder().build().toString());
        assertThat(config.toString()).contains("***@" + redis.host());
        assertNoSecret(logged);
    }

    @Test
    void aRawPasswordStaysHiddenInToString() {
        LockClientConfig config = LockClientConfig.builder().redisUri(uri(USER, PASSWORD)).build();
        assertNoSecret(config.toString());
        assertThat(config.toString()).contains("redis://***@127.0.0.1:" + redis.port());
    }

    @Test
    void aUriThatDoesNotParseIsNotEchoed() {
        for (String uri : List.of(uri(USER, PASSWORD),
                "redis-cluster://" + USER + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port(),
                "redis-sentinel://" + USER + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port()
                        + "/?sentinelMasterId=m")) {
            Throwable thrown = catchThrowable(() -> LockClient.connect(uri).close());
            assertThat(thrown).as(uri.substring(0, 12)).isInstanceOfAny(IllegalArgumentException.class,
                    LockException.class);
            assertNoSecret(everything(thrown));
        }
    }

    @Test
    void aWrongPasswordFailsWithoutShowingIt() {
        String logged = capturingStdErr(() -> {
            for (String password : List.of(encoded(PASSWORD), encoded(PASSWORD + "wrong"))) {
                Throwable thrown = catchThrowable(() -> LockClient.connect(uri("nobody", password)).close());
                assertThat(thrown).isInstanceOf(LockException.class).hasMessageContaining("cannot connect");
                assertNoSecret(everything(thrown));
            }
            return null;
        });
        assertNoSecret(logged);
    }

    @Test
    void theWarningOfAUserWithoutInfoShowsNoCredentials() {
        String logged = capturingStdErr(() -> {
            try (LockClient client = LockClient.connect(uri("no-info", encoded(PASSWORD)))) {
                client.getLock("credentials").lock();
                client.getLock("credentials").unlock();
            }
            return null;
        });
        assertThat(logged).contains("cannot check the version");
        assertNoSecret(logged);
    }

    /** The message, {@code toString()} and stack trace of the whole cause chain. */
    static String everything(Throwable thrown) {
        StringWriter out = new StringWriter();
        thrown.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    static void assertNoSecret(String text) {
        for (String fragment : FRAGMENTS) {
            assertThat(text).as("must not contain '%s'", fragment).doesNotContain(fragment);
        }
    }

    /** Runs {@code action} while slf4j-simple's output (System.err, looked up per line) goes to a buffer. */
    static synchronized String capturingStdErr(Supplier<Void> action) {
        PrintStream original = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            action.get();
        } finally {
            System.setErr(original);
        }
        String captured = buffer.toString(StandardCharsets.UTF_8);
        original.print(captured);
        return captured;
    }
}
