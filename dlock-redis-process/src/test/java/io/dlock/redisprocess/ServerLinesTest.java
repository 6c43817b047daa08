package io.dlock.redisprocess;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How the test kit reads the four tested server lines' own words: {@code --version} output and {@code INFO}. */
class ServerLinesTest {

    @Test
    void versionLinesOfEveryTestedLine() {
        assertThat(RedisBinary.versionLine("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64"))
                .contains(new RedisBinary.VersionLine("Redis", 7, 0));
        assertThat(RedisBinary.versionLine("Redis server v=8.0.2 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64"))
                .contains(new RedisBinary.VersionLine("Redis", 8, 0));
        assertThat(RedisBinary.versionLine("Redis server v=6.2.6 sha=00000000:0 malloc=libc bits=64"))
                .contains(new RedisBinary.VersionLine("Redis", 6, 2));
        // Valkey's binary names itself and its own version (INFO's redis_version says 7.2.4)
        assertThat(RedisBinary.versionLine("Valkey server v=8.1.1 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64"))
                .hasValueSatisfying(v -> {
                    assertThat(v.atLeast(3, 2)).isTrue();
                    assertThat(v).isEqualTo(new RedisBinary.VersionLine("Valkey", 8, 1));
                });
        assertThat(RedisBinary.versionLine("FATAL CONFIG FILE ERROR")).isEmpty();
        assertThat(RedisBinary.versionLine(null)).isEmpty();
        assertThat(new RedisBinary.VersionLine("Redis", 3, 1).atLeast(3, 2)).isFalse();
        assertThat(new RedisBinary.VersionLine("Redis", 3, 2).atLeast(3, 2)).isTrue();
    }

    @Test
    void productNamesValkeyByItsOwnVersion() {
        String valkey = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.1.1\r\n"
                + "redis_mode:standalone\r\n";
        assertThat(ServerProcess.product(valkey)).isEqualTo("Valkey 8.1.1");
        assertThat(ServerProcess.product("# Server\r\nredis_version:8.0.2\r\nredis_mode:standalone\r\n"))
                .isEqualTo("Redis 8.0.2");
        assertThat(ServerProcess.product("# Server\r\nredis_version:6.2.6\r\n")).isEqualTo("Redis 6.2.6");
    }
}
