package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.ClientSettings;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.CompletableFuture;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A latch while Redis does not answer: an untimed await keeps checking and returns once Redis is back and the latch
 * opens; a timed one fails with {@link LockException}, as a timed {@code tryLock} does.
 */
@ExtendWith(RedisExtension.class)
@Timeout(value = 60, unit = SECONDS)
class LatchOutageIT {

    @Test
    void anUntimedAwaitOutlastsAnOutageATimedOneFails(
            RedisServer redis,
            @ClientSettings(watchdogTimeoutMillis = 1200, commandTimeoutMillis = 300) LockClient client)
            throws Exception {
        DistributedCountDownLatch latch = client.getCountDownLatch("outage");
        latch.trySetCount(1);
        CompletableFuture<Void> untimed = latch.awaitAsync();
        CompletableFuture<Boolean> timed = latch.awaitAsync(20, SECONDS);
        Thread.sleep(200);
        redis.pause();
        try {
            assertThatThrownBy(() -> timed.get(10, SECONDS)).hasCauseInstanceOf(LockException.class)
                    .hasMessageContaining("count-down latch 'outage'");
            Thread.sleep(1000); // the untimed one goes on checking meanwhile
            assertThat(untimed).isNotDone();
        } finally {
            redis.resume();
        }
        assertThat(latch.getCount()).isEqualTo(1);
        latch.countDown();
        untimed.get(5, SECONDS);
        assertThat(latch.await(5, SECONDS)).isTrue();
    }
}
