package io.dlock;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The public API keeps its promises of shape: checked exceptions, named constants, defaults, validation. */
class ApiShapeTest {

    @Test
    void onlyInterruptibleWaitsDeclareCheckedExceptions() {
        for (Method m : DistributedLock.class.getMethods()) {
            boolean interruptible = m.getName().equals("lockInterruptibly") || m.getName().equals("tryLock")
                    && m.getParameterCount() > 0;
            if (!interruptible) {
                assertThat(m.getExceptionTypes()).as(m.toString()).isEmpty();
            }
        }
    }

    @Test
    void namedConstantsHaveTheDocumentedValues() {
        assertThat(DistributedLock.LEASE_WATCHDOG).isEqualTo(-1L);
        assertThat(DistributedLock.TTL_NOT_LOCKED).isEqualTo(-2L);
        assertThat(DistributedLock.TTL_NO_EXPIRY).isEqualTo(-1L);
    }

    @Test
    void configDefaultsAreTheDocumentedOnes() {
        LockClientConfig config = LockClientConfig.builder().build();
        assertThat(config.watchdogTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.fairLockWaitTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.commandTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.syncReplicas()).isZero();
    }

    @Test
    void commandTimeoutFollowsAShortWatchdogUnlessSetAndMustStayBelowAThirdOfIt() {
        assertThat(LockClientConfig.builder().watchdogTimeout(Duration.ofSeconds(12)).build().commandTimeout())
                .isEqualTo(Duration.ofSeconds(3));
        assertThat(LockClientConfig.builder().watchdogTimeout(Duration.ofSeconds(2)).build().commandTimeout())
                .isEqualTo(Duration.ofMillis(500));
        LockClientConfig explicit = LockClientConfig.builder().watchdogTimeout(Duration.ofSeconds(2))
                .commandTimeout(Duration.ofMillis(666)).build();
        assertThat(explicit.commandTimeout()).isEqualTo(Duration.ofMillis(666));
        assertThatThrownBy(() -> LockClientConfig.builder().watchdogTimeout(Duration.ofSeconds(3))
                .commandTimeout(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("commandTimeout").hasMessageContaining("watchdogTimeout (3000 ms)");
        assertThatThrownBy(() -> LockClientConfig.builder().watchdogTimeout(Duration.ofSeconds(6)).build().toBuilder()
                .commandTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout");
        // a default command timeout is not carried into a copy as if it had been set: it follows the new watchdog
        LockClientConfig copy = LockClientConfig.builder().build().toBuilder()
                .watchdogTimeout(Duration.ofMillis(900)).build();
        assertThat(copy.commandTimeout()).isEqualTo(Duration.ofMillis(225));
        // an explicit one is carried, and checked against the copy's watchdog
        assertThatThrownBy(() -> explicit.toBuilder().watchdogTimeout(Duration.ofMillis(1500)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commandTimeout");
    }

    @Test
    void configRejectsBadValuesNamingTheSetting() {
        assertThatThrownBy(() -> LockClientConfig.builder().watchdogTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("watchdogTimeout");
        assertThatThrownBy(() -> LockClientConfig.builder().commandTimeout(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("commandTimeout");
        assertThatThrownBy(() -> LockClientConfig.builder().redisUri(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redisUri");
        assertThatThrownBy(() -> LockClientConfig.builder().syncReplicas(-1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicas");
    }

    @Test
    void spinWaitAndLocalHandoffsHaveTheDocumentedDefaultsAndBounds() {
        LockClientConfig defaults = LockClientConfig.builder().build();
        assertThat(defaults.spinWait()).isEqualTo(LockClientConfig.DEFAULT_SPIN_WAIT)
                .isEqualTo(Duration.ofNanos(200_000));
        assertThat(defaults.localHandoffs()).isEqualTo(LockClientConfig.DEFAULT_LOCAL_HANDOFFS).isEqualTo(8);

        LockClientConfig edges = LockClientConfig.builder().spinWait(Duration.ZERO).localHandoffs(0).build();
        assertThat(edges.spinWait()).isEqualTo(Duration.ZERO);
        assertThat(edges.localHandoffs()).isZero();
        assertThat(LockClientConfig.builder().spinWait(Duration.ofMillis(10)).build().spinWait())
                .isEqualTo(Duration.ofMillis(10));

        assertThatThrownBy(() -> LockClientConfig.builder().spinWait(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spinWait");
        assertThatThrownBy(() -> LockClientConfig.builder().spinWait(Duration.ofMillis(10).plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spinWait");
        assertThatThrownBy(() -> LockClientConfig.builder().spinWait(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("spinWait");
        assertThatThrownBy(() -> LockClientConfig.builder().localHandoffs(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localHandoffs");
    }

    @Test
    void toBuilderKeepsSpinWaitAndLocalHandoffs() {
        LockClientConfig config = LockClientConfig.builder().spinWait(Duration.ofMillis(3)).localHandoffs(2).build();
        LockClientConfig copy = config.toBuilder().build();
        assertThat(copy.spinWait()).isEqualTo(Duration.ofMillis(3));
        assertThat(copy.localHandoffs()).isEqualTo(2);
        assertThat(config.toString()).contains("spinWait=PT0.003S").contains("localHandoffs=2");
        LockClientConfig changed = config.toBuilder().localHandoffs(5).build();
        assertThat(changed.localHandoffs()).isEqualTo(5);
        assertThat(changed.spinWait()).isEqualTo(Duration.ofMillis(3));
        assertThat(config.localHandoffs()).as("the original is immutable").isEqualTo(2);
    }

    @Test
    void probeLockNameIsValidatedShownAndCarried() {
        assertThat(LockClientConfig.builder().build().probeLockName())
                .isEqualTo(LockClientConfig.DEFAULT_PROBE_LOCK_NAME);
        LockClientConfig config = LockClientConfig.builder().probeLockName("lock:probe").build();
        assertThat(config.toBuilder().build().probeLockName()).isEqualTo("lock:probe");
        assertThat(config.toString()).contains("probeLockName=lock:probe");
        assertThatThrownBy(() -> LockClientConfig.builder().probeLockName(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("probeLockName");
        assertThatThrownBy(() -> LockClientConfig.builder().probeLockName(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("probeLockName");
    }

    @Test
    void configToStringHidesThePassword() {
        LockClientConfig config = LockClientConfig.builder().redisUri("redis://user:secret@host:6379").build();
        assertThat(config.toString()).doesNotContain("secret").contains("host:6379");
        assertThat(config.toBuilder().build().redisUri()).isEqualTo("redis://user:secret@host:6379");
    }

    @Test
    void malformedUriIsRejectedBeforeConnecting() {
        assertThatThrownBy(() -> LockClient.connect("http://nope"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redisUri");
    }

    @Test
    void unreachableRedisFailsWithLockExceptionWithinTheCommandTimeout() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.create(LockClientConfig.builder()
                .redisUri("redis://127.0.0.1:1").commandTimeout(Duration.ofMillis(500)).build()))
                .isInstanceOf(LockException.class).hasMessageContaining("127.0.0.1:1");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
}
