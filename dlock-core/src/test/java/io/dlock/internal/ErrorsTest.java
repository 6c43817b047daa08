package io.dlock.internal;

import io.dlock.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;

/** Which failures count as Redis being unavailable (retried by acquisitions without a wait limit). */
class ErrorsTest {

    @Test
    void connectionLossTimeoutsAndFailoverRepliesAreUnavailability() {
        assertThat(Errors.isUnavailable(new RedisConnectionException("refused"))).isTrue();
        assertThat(Errors.isUnavailable(new CompletionException(new RedisCommandTimeoutException("timed out"))))
                .isTrue();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException(
                "READONLY You can't write against a read only replica. script: 1234, on @user_script:1."))).isTrue();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))
                .isTrue();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException("TRYAGAIN Multiple keys request"))).isTrue();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException(
                "ERR Error running script: @user_script:3: -LOADING Redis is loading the dataset"))).isTrue();
        assertThat(Errors.isUnavailable(Errors.toApi(new RedisConnectionException("refused"), "a", "acquire")))
                .as("wrapped in the API's exception").isTrue();
        assertThat(Errors.isUnavailable(new io.dlock.ReplicasNotSyncedException("orders", "only 0 of 1"))).isTrue();
    }

    @Test
    void wrongRequestsAndTheApisOwnExceptionsAreNot() {
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException(
                "WRONGTYPE Operation against a key holding the wrong kind of value"))).isFalse();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException(
                "ERR CROSSSLOT Keys in request don't hash to the same slot"))).isFalse();
        assertThat(Errors.isUnavailable(new RedisCommandExecutionException("ERR READONLY is not a word here")))
                .isFalse();
        assertThat(Errors.isUnavailable(new LockException("the lock client is closed"))).isFalse();
        assertThat(Errors.isUnavailable(new IllegalMonitorStateException("not held"))).isFalse();
    }

    /** Redis 7.2+, 8.0 and Valkey word a script's ACL refusal without naming the command; 7.0 names it. */
    @Test
    void anAclRefusalInAScriptSaysWhatTheUserLacksOnEveryServerLine() {
        String valkeyAndRedis8 = "ERR ACL failure in script: No permissions to access a channel script: fd7c9f39, "
                + "on @user_script:84.";
        assertThat(Errors.toApi(new RedisCommandExecutionException(valkeyAndRedis8), "semaphore", "cart",
                "trySetPermits").getMessage())
                .startsWith("semaphore 'cart': trySetPermits failed: Redis error: ERR ACL failure in script")
                .contains("may not publish on this object's channel", "Redis ACL");
        assertThat(Errors.describe(new RedisCommandExecutionException(
                "ERR ACL failure in script: No permissions to access a key script: 4f9a, on @user_script:3.")))
                .contains("may not use one of this object's keys");
        String redis70 = "ERR Error running script (call to f_4f9a): @user_script:32: The user executing the script "
                + "can't publish to the channel mentioned in the command";
        assertThat(Errors.describe(new RedisCommandExecutionException(redis70))).isEqualTo("Redis error: " + redis70);
    }
}
