package io.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import io.dlock.LockClientConfig;
import org.junit.jupiter.api.Test;

/** How {@link RedisExtension} turns {@link ClientSettings} into a {@link LockClientConfig}; no Redis needed. */
class ClientSettingsIT {

    @ClientSettings(watchdogTimeoutMillis = 1_000, commandTimeoutMillis = 300, fairLockWaitTimeoutMillis = 3_000)
    static class Annotated {
        @ClientSettings(commandTimeoutMillis = 200)
        void method(@ClientSettings(watchdogTimeoutMillis = 900) Object client) {
        }

        @ClientSettings(watchdogTimeoutMillis = -1)
        void negative() {
        }
    }

    @Test
    void nearestNonZeroValueWins() throws Exception {
        var method = Annotated.class.getDeclaredMethod("method", Object.class);
        ClientSettings parameter = method.getParameters()[0].getAnnotation(ClientSettings.class);
        ClientSettings onMethod = method.getAnnotation(ClientSettings.class);
        ClientSettings onClass = Annotated.class.getAnnotation(ClientSettings.class);

        LockClientConfig config = RedisExtension.clientConfig("redis://127.0.0.1:1234",
                List.of(parameter, onMethod, onClass));

        assertThat(config.redisUri()).contains("redis://127.0.0.1:1234");
        assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofMillis(900));
        assertThat(config.commandTimeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.fairLockWaitTimeout()).isEqualTo(Duration.ofMillis(3_000));
    }

    @Test
    void noSettingsKeepTheDefaults() {
        LockClientConfig config = RedisExtension.clientConfig("redis://127.0.0.1:1234", List.of());
        assertThat(config.watchdogTimeout()).isEqualTo(LockClientConfig.DEFAULT_WATCHDOG_TIMEOUT);
        assertThat(config.commandTimeout()).isEqualTo(LockClientConfig.DEFAULT_COMMAND_TIMEOUT);
        assertThat(config.fairLockWaitTimeout()).isEqualTo(LockClientConfig.DEFAULT_FAIR_LOCK_WAIT_TIMEOUT);
    }

    @Test
    void negativeValuesAreRejected() throws Exception {
        ClientSettings negative = Annotated.class.getDeclaredMethod("negative").getAnnotation(ClientSettings.class);
        assertThatThrownBy(() -> RedisExtension.clientConfig("redis://127.0.0.1:1234", List.of(negative)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watchdogTimeoutMillis");
    }
}
