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
}
