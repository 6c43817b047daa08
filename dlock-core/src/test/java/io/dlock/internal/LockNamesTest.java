package io.dlock.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LockNamesTest {

    @Test
    void channelNamesFollowRedissonsHashTagRule() {
        assertThat(LockNames.lockChannel("orders:42")).isEqualTo("redisson_lock__channel:{orders:42}");
        assertThat(LockNames.lockChannel("{user}:1")).isEqualTo("redisson_lock__channel:{user}:1");
        assertThat(LockNames.prefixed("redisson_lock_queue", "x")).isEqualTo("redisson_lock_queue:{x}");
    }

    @Test
    void aLockChannelNamesEveryLockThatUsesIt() {
        assertThat(LockNames.namesOfLockChannel("redisson_lock__channel:{orders:42}"))
                .containsExactly("orders:42", "{orders:42}");
        assertThat(LockNames.namesOfLockChannel("redisson_lock__channel:{x}")).containsExactly("x", "{x}");
        assertThat(LockNames.namesOfLockChannel("redisson_lock__channel:{user}:1")).containsExactly("{user}:1");
        assertThat(LockNames.namesOfLockChannel("redisson_lock__channel:a{b}c")).containsExactly("a{b}c");
        assertThat(LockNames.namesOfLockChannel("redisson_lock__channel:plain")).isEmpty();
        assertThat(LockNames.namesOfLockChannel("redisson_rwlock:{x}")).isEmpty();
        assertThat(LockNames.namesOfLockChannel(null)).isEmpty();
        for (String name : new String[] {"x", "{x}", "a{b}c", "{u}:1", "o:42", "{}", "a}"}) {
            assertThat(LockNames.namesOfLockChannel(LockNames.lockChannel(name))).as(name).contains(name);
        }
    }

    @Test
    void aNameThatIsOneWholeHashTagIsRefusedWhereItWouldShareKeysWithAnother() {
        assertThatThrownBy(() -> LockNames.requireOwnAuxiliaryKeys("{orders}", "fair lock"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'{orders}'")
                .hasMessageContaining("fair lock").hasMessageContaining("use 'orders'");
        assertThat(LockNames.prefixed("redisson_lock_queue", "{orders}"))
                .isEqualTo(LockNames.prefixed("redisson_lock_queue", "orders"));
        for (String fine : new String[] {"orders", "{orders}:1", "a{b}c", "{a}{b}", "{}", "{", "x}"}) {
            assertThat(LockNames.requireOwnAuxiliaryKeys(fine, "fair lock")).as(fine).isEqualTo(fine);
        }
        assertThatThrownBy(() -> LockNames.requireOwnAuxiliaryKeys(" ", "fair lock"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ownerFieldIsClientIdColonOwnerId() {
        assertThat(LockNames.ownerField("8a2c-uuid", 57)).isEqualTo("8a2c-uuid:57");
    }

    @Test
    void badNamesAreRejectedNamingTheParameter() {
        assertThatThrownBy(() -> LockNames.requireValid(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> LockNames.requireValid("  ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThat(LockNames.requireValid("ok")).isEqualTo("ok");
    }
}
