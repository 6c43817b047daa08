package io.dlock.internal.lock;

import io.dlock.internal.script.LuaScript;
import io.dlock.internal.script.Scripts;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The fair lock's names, slot arithmetic and script headers, without a server. */
class FairProtocolTest {

    @Test
    void keysAndChannelsAreRedissons() {
        assertThat(FairProtocol.queueKey("orders:42")).isEqualTo("redisson_lock_queue:{orders:42}");
        assertThat(FairProtocol.timeoutKey("orders:42")).isEqualTo("redisson_lock_timeout:{orders:42}");
        assertThat(FairProtocol.waiterChannel("orders:42", "8a2c-uuid:57"))
                .isEqualTo("redisson_lock__channel:{orders:42}:8a2c-uuid:57");
        // a name with its own hash tag keeps it, so every key and channel shares the lock's slot
        assertThat(FairProtocol.queueKey("{user}:1")).isEqualTo("redisson_lock_queue:{user}:1");
        assertThat(FairProtocol.timeoutKey("{user}:1")).isEqualTo("redisson_lock_timeout:{user}:1");
        assertThat(FairProtocol.waiterChannel("{user}:1", "u:3")).isEqualTo("redisson_lock__channel:{user}:1:u:3");
    }

    @Test
    void everyWaiterHasTheFairLockWaitTimeoutAsSlotAndSleepsAtMostAThirdOfIt() {
        assertThat(FairProtocol.slotMillis(300_000)).isEqualTo(300_000);
        assertThat(FairProtocol.slotMillis(1)).isEqualTo(1);
        assertThat(FairProtocol.slotMillis(Long.MAX_VALUE)).isEqualTo(FairProtocol.MAX_SLOT_MS);
        assertThat(FairProtocol.maxSleepMillis(300_000)).isEqualTo(100_000);
        assertThat(FairProtocol.maxSleepMillis(2)).isEqualTo(1);
        // epoch ms plus a few hundred slots stays an exact integer in Lua's doubles
        assertThat((double) (System.currentTimeMillis() + 500 * FairProtocol.MAX_SLOT_MS))
                .isLessThan(Math.pow(2, 53));
    }

    @Test
    void everyScriptStatesItsContract() {
        for (LuaScript script : List.of(Scripts.FAIR_ACQUIRE, Scripts.FAIR_RELEASE, Scripts.FAIR_GIVE_UP,
                Scripts.FAIR_FORCE_RELEASE)) {
            String header = script.text().lines().takeWhile(line -> line.startsWith("--")).reduce("",
                    (a, b) -> a + b + "\n");
            assertThat(header).as(script.name()).contains("KEYS[1]", "ARGV[1]", "Returns", "Invariant",
                    "Wire protocol", "docs/protocol.md §3");
        }
    }
}
