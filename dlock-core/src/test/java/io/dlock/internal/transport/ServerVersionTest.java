package io.dlock.internal.transport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ServerVersionTest {

    @Test
    void readsRedisVersionFromAnInfoReply() {
        String info = "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n";
        assertThat(ServerVersion.fromInfo(info)).contains(new ServerVersion(7, 0, 15));
        assertThat(ServerVersion.fromInfo("redis_version:6.2.6\n")).contains(new ServerVersion(6, 2, 6));
        assertThat(ServerVersion.fromInfo("# Server\r\nredis_mode:standalone\r\n")).isEmpty();
        assertThat(ServerVersion.fromInfo(null)).isEmpty();
    }

    @Test
    void parsesTwoOrMorePartsAndIgnoresSuffixes() {
        assertThat(ServerVersion.parse("8.0")).contains(new ServerVersion(8, 0, 0));
        assertThat(ServerVersion.parse("7.2.4-rc1")).contains(new ServerVersion(7, 2, 4));
        assertThat(ServerVersion.parse("6.2.6.1")).contains(new ServerVersion(6, 2, 6));
        assertThat(ServerVersion.parse("seven")).isEmpty();
        assertThat(ServerVersion.parse("7")).isEmpty();
        assertThat(ServerVersion.parse("x.1.2")).isEmpty();
    }

    @Test
    void sixPointTwoIsTheOldestSupported() {
        assertThat(ServerVersion.MINIMUM).hasToString(ServerVersion.MINIMUM_TEXT);
        assertThat(new ServerVersion(6, 2, 0).isSupported()).isTrue();
        assertThat(new ServerVersion(6, 2, 6).isSupported()).isTrue();
        assertThat(new ServerVersion(7, 0, 0).isSupported()).isTrue();
        assertThat(new ServerVersion(10, 0, 0).isSupported()).isTrue();
        assertThat(new ServerVersion(6, 1, 99).isSupported()).isFalse();
        assertThat(new ServerVersion(6, 0, 20).isSupported()).isFalse();
        assertThat(new ServerVersion(5, 9, 0).isSupported()).isFalse();
        assertThat(new ServerVersion(2, 8, 19).isSupported()).isFalse();
    }

    @Test
    void valkeyIsCheckedByItsCompatibleRedisLineAndNamedByItsOwn() {
        String info = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.1.1\r\n";
        assertThat(ServerVersion.fromInfo(info)).contains(new ServerVersion(7, 2, 4));
        assertThat(ServerVersion.serverName(info)).isEqualTo("Valkey 8.1.1 (redis_version 7.2.4)");
        assertThat(ServerVersion.serverName("redis_version:8.0.2\n")).isEqualTo("Redis 8.0.2");
        assertThat(ServerVersion.serverName("# Server\n")).isEqualTo("Redis (version unknown)");
        assertThat(ServerVersion.serverName(null)).isEqualTo("Redis (version unknown)");
    }
}
