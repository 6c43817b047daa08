package io.dlock.internal.lock;

import io.dlock.LockException;
import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** syncReplicas: confirmed acquisitions pass, unconfirmed ones are given back and fail as "unavailable". */
class ReplicaSyncTest {
    private final AtomicInteger givenBack = new AtomicInteger();

    private CompletableFuture<Void> giveBack() {
        givenBack.incrementAndGet();
        return CompletableFuture.completedFuture(null);
    }

    @Test
    void enoughReplicasConfirmTheAcquisition() {
        ReplicaSync sync = new ReplicaSync(2, 500, (key, replicas, timeout) -> {
            assertThat(key).isEqualTo("orders");
            assertThat(replicas).isEqualTo(2);
            assertThat(timeout).isEqualTo(500);
            return CompletableFuture.completedFuture(2L);
        });
        assertThat(sync.confirm("orders", "orders", this::giveBack)).isCompletedWithValue(null);
        assertThat(givenBack).hasValue(0);
    }

    @Test
    void tooFewReplicasGiveTheHoldBackAndFail() {
        ReplicaSync sync = new ReplicaSync(2, 500, (key, replicas, timeout) -> CompletableFuture.completedFuture(1L));
        Throwable failure = sync.confirm("orders", "orders", this::giveBack).handle((ok, e) -> e)
                .toCompletableFuture().join();
        assertThat(givenBack).hasValue(1);
        assertThat(Errors.unwrap(failure)).isInstanceOf(io.dlock.ReplicasNotSyncedException.class)
                .hasMessageContaining("orders").hasMessageContaining("1 of 2 replica(s)");
        assertThat(Errors.isUnavailable(failure)).isTrue();
    }

    @Test
    void aFailedWaitGivesTheHoldBackToo() {
        ReplicaSync sync = new ReplicaSync(1, 500, (key, replicas, timeout) -> CompletableFuture.failedFuture(
                new RedisCommandTimeoutException("WAIT timed out")));
        assertThat(sync.confirm("orders", "orders", this::giveBack)).failsWithin(Duration.ZERO)
                .withThrowableThat().havingRootCause().isInstanceOf(RedisCommandTimeoutException.class);
        assertThat(givenBack).hasValue(1);
        Throwable failure = sync.confirm("orders", "orders", this::giveBack).handle((ok, e) -> e).join();
        assertThat(Errors.unwrap(failure)).isInstanceOf(LockException.class);
        assertThat(Errors.isUnavailable(failure)).isTrue();
    }

    @Test
    void offConfirmsNothing() {
        assertThat(ReplicaSync.off().enabled()).isFalse();
    }
}
