package io.dlock;

import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandExecutionException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The public exceptions carry what a caller needs to tell failures apart without reading messages. */
class ExceptionsTest {

    @Test
    void aRedisFailureOnALockNamesTheLock() {
        RuntimeException e = Errors.toApi(new RedisCommandExecutionException("WRONGTYPE Operation against a key"),
                "orders", "acquire");
        assertThat(e).isInstanceOf(LockException.class).hasMessageStartingWith("lock 'orders': acquire failed");
        assertThat(((LockException) e).lockName()).isEqualTo("orders");
        assertThat(new LockException("cannot connect").lockName()).as("a failure of no single lock").isNull();
    }

    @Test
    void replicasNotSyncedIsALockFailureOfItsLock() {
        ReplicasNotSyncedException e = new ReplicasNotSyncedException("orders", "lock 'orders': only 0 of 1");
        assertThat(e).isInstanceOf(LockException.class);
        assertThat(e.lockName()).isEqualTo("orders");
        assertThat(Errors.isUnavailable(e)).as("waits without a limit try again").isTrue();
    }

    @Test
    void aLostHoldIsALockFailureOfItsLockThatDoesNotPassByItself() {
        LockLostException e = new LockLostException("orders", "lock 'orders': the hold of owner c:1 is gone");
        assertThat(e).isInstanceOf(LockException.class).hasMessageContaining("'orders'");
        assertThat(e.lockName()).isEqualTo("orders");
        assertThat(Errors.isUnavailable(e)).as("not a Redis outage to wait out").isFalse();
    }

    @Test
    void aScriptsRefusalOfAKeyThatIsNotALockIsANotALockExceptionNamingTheLock() {
        RuntimeException hash = Errors.toApi(new RedisCommandExecutionException(
                "DLOCK_NOT_A_LOCK dlock: the key holds a hash that is not a lock; nothing was changed"),
                "cart:42", "forceUnlock");
        assertThat(hash).isInstanceOf(NotALockException.class).hasMessage(
                "lock 'cart:42': forceUnlock refused: the key holds a hash that is not a lock; nothing was changed");
        assertThat(((LockException) hash).lockName()).isEqualTo("cart:42");
        assertThat(Errors.isUnavailable(hash)).as("retrying finds the same key").isFalse();

        RuntimeException string = Errors.toApi(new RedisCommandExecutionException(
                "WRONGTYPE dlock: the key holds a string, not a lock; nothing was changed"), "a", "forceUnlock");
        assertThat(string).isInstanceOf(NotALockException.class)
                .hasMessage("lock 'a': forceUnlock refused: the key holds a string, not a lock; nothing was changed");

        assertThat(Errors.toApi(new RedisCommandExecutionException(
                "WRONGTYPE Operation against a key holding the wrong kind of value"), "a", "acquire"))
                .as("Redis's own WRONGTYPE names no key: it may concern another key of the lock")
                .isExactlyInstanceOf(LockException.class);
    }

    @Test
    void aRefusedSettingIsNamedAsTheBuilderNamesIt() {
        InvalidSettingException negative = catchThrowableOfType(
                () -> TuningSettings.builder().localHandoffs(-1), InvalidSettingException.class);
        assertThat(negative.setting()).isEqualTo("tuning.localHandoffs");
        assertThat(negative).isInstanceOf(IllegalArgumentException.class);

        InvalidSettingException tooShort = catchThrowableOfType(
                () -> LockClientConfig.builder().watchdogTimeout(Duration.ofMillis(5)), InvalidSettingException.class);
        assertThat(tooShort.setting()).isEqualTo("watchdogTimeout");

        InvalidSettingException conflict = catchThrowableOfType(() -> LockClientConfig.builder()
                .watchdogTimeout(Duration.ofSeconds(3)).commandTimeout(Duration.ofSeconds(1)).build(),
                InvalidSettingException.class);
        assertThat(conflict.setting()).isEqualTo("commandTimeout");
        assertThat(conflict).hasMessageContaining("a third of watchdogTimeout");
    }
}
