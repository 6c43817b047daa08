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

    @Test
    void twoNamesGetTwoKeySetsExceptAWholeHashTagWhichTheClientRefuses() {
        SemaphoreKeys plain = SemaphoreKeys.of("x");
        SemaphoreKeys tagged = SemaphoreKeys.of("{x}:y");
        assertThat(plain.both()).doesNotContainAnyElementsOf(java.util.List.of(tagged.both()));
        assertThat(plain.channel()).isNotEqualTo(tagged.channel());
        // "{x}" would share x's permit table, so the client refuses it for the leased semaphore (LockNames)
        assertThat(SemaphoreKeys.of("{x}").tableKey()).isEqualTo(plain.tableKey());
        assertThatThrownBy(() -> io.dlock.internal.LockNames.requireOwnAuxiliaryKeys("{x}", "leased semaphore"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'{x}'");
        // grant marks are per attempt: two attempts never share one, whatever the names
        assertThat(plain.countAndMark("a")[1]).isEqualTo("{x}:dlock_grant:a");
        assertThat(tagged.countAndMark("a")[1]).isEqualTo("{x}:y:dlock_grant:a");
        assertThat(plain.countAndMark("a")[1]).isNotEqualTo(plain.countAndMark("b")[1]);
    }

    @Test
    void anAttemptsIdsAreASeriesComputedAgainFromItsFirst() {
        assertThat(PermitIds.series("0000000000000000000000000000000f", 3)).containsExactly(
                "0000000000000000000000000000000f", "00000000000000000000000000000010",
                "00000000000000000000000000000011");
        assertThat(PermitIds.series("ffffffffffffffffffffffffffffffff", 2)).containsExactly(
                "ffffffffffffffffffffffffffffffff", "00000000000000000000000000000000");
    }
}
