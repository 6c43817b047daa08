package io.dlock.internal.semaphore;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Key and channel names as Redisson derives them, and permit ids in Redisson's form. */
class SemaphoreKeysTest {

    @Test
    void aPlainNameIsWrappedInBraces() {
        SemaphoreKeys keys = SemaphoreKeys.of("sem");
        assertThat(keys.tableKey()).isEqualTo("{sem}:timeout");
        assertThat(keys.channel()).isEqualTo("redisson_sc:{sem}");
        assertThat(keys.both()).containsExactly("sem", "{sem}:timeout");
    }

    @Test
    void aNameWithItsOwnHashTagKeepsIt() {
        SemaphoreKeys keys = SemaphoreKeys.of("{tag}:sem");
        assertThat(keys.tableKey()).isEqualTo("{tag}:sem:timeout");
        assertThat(keys.channel()).isEqualTo("redisson_sc:{tag}:sem");
    }

    @Test
    void idsAre32LowerCaseHexDigits() {
        assertThat(PermitIds.fresh()).matches("[0-9a-f]{32}").isNotEqualTo(PermitIds.fresh());
        assertThat(PermitIds.require("s", "0123456789ABCDEF0123456789abcdef"))
                .isEqualTo("0123456789abcdef0123456789abcdef");
        assertThatThrownBy(() -> PermitIds.require("s", "0123")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("semaphore 's'");
        assertThatThrownBy(() -> PermitIds.require("s", "g123456789abcdef0123456789abcdef"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
