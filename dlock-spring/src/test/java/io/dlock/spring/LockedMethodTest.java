package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Parsing of the annotation's attributes, without Redis. */
class LockedMethodTest {

    static class Methods {
        @DistributedLocked(name = "a", waitTime = "PT2S", leaseTime = "1m", minHoldTime = "1500")
        void iso() {
        }

        @DistributedLocked(name = "a", waitTime = "forever")
        void defaults() {
        }

        @DistributedLocked(name = "a", waitTime = "${wait}")
        void placeholder() {
        }

        @DistributedLocked(name = "a", minHoldTime = "-1s")
        void negative() {
        }

        @DistributedLocked(name = "a", leaseTime = "0")
        void zeroLease() {
        }

        @DistributedLocked(name = "  ")
        void blank() {
        }
    }

    private static LockedMethod parse(String method, Map<String, String> properties) throws Exception {
        Method m = Methods.class.getDeclaredMethod(method);
        return LockedMethod.parse(m, m.getAnnotation(DistributedLocked.class),
                value -> value.equals("${wait}") ? properties.get("wait") : value);
    }

    @Test
    void durationsInEveryFormat() throws Exception {
        LockedMethod iso = parse("iso", Map.of());
        assertThat(iso.waitMs()).isEqualTo(2000);
        assertThat(iso.leaseMs()).isEqualTo(60_000);
        assertThat(iso.minHoldMs()).isEqualTo(1500);

        LockedMethod defaults = parse("defaults", Map.of());
        assertThat(defaults.waitMs()).isEqualTo(DistributedLock.WAIT_FOREVER);
        assertThat(defaults.leaseMs()).isEqualTo(DistributedLock.LEASE_WATCHDOG);
        assertThat(defaults.minHoldMs()).isZero();
        assertThat(defaults.whenBusy()).isEqualTo(WhenBusy.THROW);
        assertThat(defaults.kind()).isEqualTo(LockKind.PLAIN);
        assertThat(defaults.name().isPlain()).isTrue();

        assertThat(parse("placeholder", Map.of("wait", "250ms")).waitMs()).isEqualTo(250);
    }

    @Test
    void badValuesNameTheMethodAndTheAttribute() {
        assertThatThrownBy(() -> parse("negative", Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessage("@DistributedLocked on Methods.negative(): minHoldTime \"-1s\" is negative");
        assertThatThrownBy(() -> parse("zeroLease", Map.of())).hasMessageContaining("leaseTime \"0\" is zero");
        assertThatThrownBy(() -> parse("blank", Map.of())).hasMessageContaining("name is blank");
    }

    @Test
    void skippedCallsReturnEmptyValues() {
        assertThat(MethodAttributes.skipValue(void.class)).isNull();
        assertThat(MethodAttributes.skipValue(String.class)).isNull();
        assertThat(MethodAttributes.skipValue(Optional.class)).isEqualTo(Optional.empty());
        assertThat(MethodAttributes.skipValue(OptionalInt.class)).isEqualTo(OptionalInt.empty());
        assertThat(MethodAttributes.skipValue(int.class)).isEqualTo(0);
        assertThat(MethodAttributes.skipValue(long.class)).isEqualTo(0L);
        assertThat(MethodAttributes.skipValue(double.class)).isEqualTo(0d);
        assertThat(MethodAttributes.skipValue(boolean.class)).isEqualTo(false);
        assertThat(MethodAttributes.skipValue(char.class)).isEqualTo('\0');
    }
}
