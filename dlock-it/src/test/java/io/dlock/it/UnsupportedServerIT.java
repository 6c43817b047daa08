package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A server older than dlock's minimum (Redis 6.2) is refused when the client connects, with a {@link LockException}
 * that names its version and the minimum, instead of locks whose scripts fail later ({@code LPOS} is 6.0.6+).
 * The old server is a real one: Redis 2.8.19, the Linux x86_64 binary that {@code dlock-it}'s build unpacks from
 * {@code com.github.kstyrc:embedded-redis:0.6} (path in the system property {@code dlock.it.oldRedis}).
 */
@Timeout(value = 60, unit = SECONDS)
class UnsupportedServerIT {

    @Test
    void aServerOlderThanTheMinimumIsRefusedAtConnectNamingBothVersions() throws Exception {
        Path binary = oldRedis();
        try (RedisServer old = RedisServer.builder().binary(binary).start()) {
            assertThat(old.version()).isEqualTo("2.8.19");
            assertThatThrownBy(() -> LockClient.connect(old.uri()))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("is Redis 2.8.19")
                    .hasMessageContaining("older than 6.2.0")
                    .hasMessageContaining("127.0.0.1:" + old.port());
            // nothing was written, and the refused client closed its connections
            try (RawRedis raw = RawRedis.connect(old.uri())) {
                assertThat(raw.dbsize()).isZero();
                Await.until(Duration.ofSeconds(5), () -> raw.sync().clientList().strip().split("\n").length == 1,
                        () -> "connections left: " + raw.sync().clientList());
            }
        }
    }

    private static Path oldRedis() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                        && Set.of("amd64", "x86_64").contains(arch),
                "the old redis-server 2.8.19 available to the build is a Linux x86_64 binary only");
        String property = System.getProperty("dlock.it.oldRedis");
        assertThat(property).as("system property dlock.it.oldRedis (set by dlock-it's pom)").isNotBlank();
        Path binary = Path.of(property);
        assertThat(binary).as("unpacked by dlock-it's build").isRegularFile();
        if (!Files.isExecutable(binary)) {
            assertThat(binary.toFile().setExecutable(true, false)).as("chmod +x " + binary).isTrue();
        }
        return binary;
    }
}
