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
        assertThat(config.redisUri()).contains(LockClientConfig.DEFAULT_REDIS_URI).contains("redis://localhost:6379");
        assertThat(config.connection()).isEmpty();
        assertThat(config.tls()).isSameAs(TlsSettings.defaults());
        assertThat(config.tuning()).isSameAs(TuningSettings.defaults());
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
        TuningSettings defaults = LockClientConfig.builder().build().tuning();
        assertThat(defaults.spinWait()).isEqualTo(TuningSettings.DEFAULT_SPIN_WAIT)
                .isEqualTo(Duration.ofNanos(200_000));
        assertThat(defaults.localHandoffs()).isEqualTo(TuningSettings.DEFAULT_LOCAL_HANDOFFS).isEqualTo(8);
        assertThat(defaults).isSameAs(TuningSettings.defaults());

        TuningSettings edges = TuningSettings.builder().spinWait(Duration.ZERO).localHandoffs(0).build();
        assertThat(edges.spinWait()).isEqualTo(Duration.ZERO);
        assertThat(edges.localHandoffs()).isZero();
        assertThat(TuningSettings.builder().spinWait(Duration.ofMillis(10)).build().spinWait())
                .isEqualTo(Duration.ofMillis(10));

        assertThatThrownBy(() -> TuningSettings.builder().spinWait(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tuning.spinWait");
        assertThatThrownBy(() -> TuningSettings.builder().spinWait(Duration.ofMillis(10).plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tuning.spinWait");
        assertThatThrownBy(() -> TuningSettings.builder().spinWait(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("tuning.spinWait");
        assertThatThrownBy(() -> TuningSettings.builder().localHandoffs(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tuning.localHandoffs");
    }

    @Test
    void toBuilderKeepsTheTuningAndTheTuningIsImmutable() {
        TuningSettings tuning = TuningSettings.builder().spinWait(Duration.ofMillis(3)).localHandoffs(2).build();
        LockClientConfig config = LockClientConfig.builder().tuning(tuning).build();
        LockClientConfig copy = config.toBuilder().build();
        assertThat(copy.tuning().spinWait()).isEqualTo(Duration.ofMillis(3));
        assertThat(copy.tuning().localHandoffs()).isEqualTo(2);
        assertThat(config.toString()).contains("spinWait=PT0.003S").contains("localHandoffs=2");
        LockClientConfig changed = config.toBuilder().tuning(config.tuning().toBuilder().localHandoffs(5).build())
                .build();
        assertThat(changed.tuning().localHandoffs()).isEqualTo(5);
        assertThat(changed.tuning().spinWait()).isEqualTo(Duration.ofMillis(3));
        assertThat(config.tuning().localHandoffs()).as("the original is immutable").isEqualTo(2);
        assertThat(tuning.localHandoffs()).isEqualTo(2);
    }

    @Test
    void probeLockNameIsValidatedShownAndCarried() {
        assertThat(LockClientConfig.builder().build().tuning().probeLockName())
                .isEqualTo(TuningSettings.DEFAULT_PROBE_LOCK_NAME);
        LockClientConfig config = LockClientConfig.builder()
                .tuning(TuningSettings.builder().probeLockName("lock:probe").build()).build();
        assertThat(config.toBuilder().build().tuning().probeLockName()).isEqualTo("lock:probe");
        assertThat(config.toString()).contains("probeLockName=lock:probe");
        assertThatThrownBy(() -> TuningSettings.builder().probeLockName(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tuning.probeLockName");
        assertThatThrownBy(() -> TuningSettings.builder().probeLockName(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("tuning.probeLockName");
    }

    @Test
    void configToStringHidesThePassword() {
        LockClientConfig config = LockClientConfig.builder().redisUri("redis://user:secret@host:6379").build();
        assertThat(config.toString()).doesNotContain("secret").contains("host:6379");
        assertThat(config.redisDescription()).isEqualTo("redis://***@host:6379");
        assertThat(config.toBuilder().build().redisUri()).contains("redis://user:secret@host:6379");
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
        // a refused connection fails at once; the bound only catches a hang (a client that retries until some longer
        // default timeout), with room for the first Lettuce/Netty start-up on a loaded 2-core machine (seen at 5.9 s)
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    }
}
