package io.dlock.it;

import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.redisprocess.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The fenced acquire script reads {@code TIME} before it writes: that must work on Redis 6.2 (the test kit's embedded
 * fallback binary) as well as on 7.x. Skipped where that binary cannot run (not Linux x86_64, no OpenSSL 3).
 */
@Timeout(value = 60, unit = SECONDS)
class FencedLockOnRedis62IT {
    private static final String RESOURCE = "/redis-server-6.2.6-v5-linux-amd64";

    @Test
    void tokensOnRedis62(/* no extension: this test picks its own binary */) throws IOException {
        Path binary = embeddedRedis62();
        RedisServer server;
        try {
            server = RedisServer.builder().binary(binary).start();
        } catch (IllegalStateException cannotRun) {
            assumeTrue(false, "the embedded Redis 6.2 does not run here: " + cannotRun.getMessage());
            return;
        }
        try (server; LockClient client = LockClient.create(LockClientConfig.builder().redisUri(server.uri()).build())) {
            assertThat(server.version()).startsWith("6.2");
            FencedLock lock = client.getFencedLock("it:fenced62");
            long first = lock.lockAndGetToken();
            assertThat(lock.lockAndGetToken()).as("re-entry").isEqualTo(first);
            lock.unlock();
            lock.unlock();
            long second = lock.lockAndGetToken(5, SECONDS);
            lock.unlock();
            assertThat(second).isGreaterThan(first);
            assertThat(first).as("a fresh counter starts at the server clock (µs)")
                    .isGreaterThan(System.currentTimeMillis() * 1000L - 60_000_000L);
            assertThat(client.inspect("it:fenced62").fencingToken()).isEqualTo(second);
        }
    }

    private static Path embeddedRedis62() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "the embedded Redis 6.2 binary is for Linux x86_64 only");
        Path target = Path.of("target", "redis-6.2", "redis-server");
        if (!Files.isExecutable(target)) {
            try (InputStream in = FencedLockOnRedis62IT.class.getResourceAsStream(RESOURCE)) {
                assumeTrue(in != null, "embedded-redis jar not on the class path");
                Files.createDirectories(target.getParent());
                Path partial = Files.createTempFile(target.getParent(), "redis-server", ".part");
                Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                assumeTrue(partial.toFile().setExecutable(true), "cannot make " + partial + " executable");
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return target.toAbsolutePath();
    }
}
