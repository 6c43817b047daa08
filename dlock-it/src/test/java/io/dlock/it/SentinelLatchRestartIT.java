package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.internal.client.RedisLockClient;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.testkit.RedisExtension;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LatchRestartIT} through Sentinel: the master restarts without persistence under awaiters that read the latch
 * closed. The restart is shorter than {@code down-after-milliseconds}, so the master normally stays the master and its
 * replicas resync from its empty data set: the latch is lost, and every await fails with {@link LockLostException}.
 * Should the Sentinels fail over meanwhile, the new master has the latch: the awaits wait on and open at the
 * count-downs. Either way no await returns {@code true} without the count-downs.
 */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.SENTINEL)
@Timeout(value = 120, unit = SECONDS)
class SentinelLatchRestartIT {

    @Test
    void aMasterRestartThatLosesAClosedLatchFailsItsAwaits(SentinelTopology sentinel, LockClient a, LockClient b)
            throws Exception {
        String name = "it:SentinelLatchRestartIT";
        DistributedCountDownLatch latch = a.getCountDownLatch(name);
        assertThat(latch.trySetCount(3, Duration.ofHours(1))).isTrue();
        CompletableFuture<Boolean> timed = latch.awaitAsync(60, SECONDS);
        CompletableFuture<Void> untimed = latch.awaitAsync();
        Await.until(Duration.ofSeconds(5), () -> ((RedisLockClient) a).latchWaitingCount() == 2, "two awaits");
        assertThat(latch.await(0, MILLISECONDS)).as("closed, read so by both awaits").isFalse();

        RedisServer master = sentinel.master();
        master.restart();
        sentinel.awaitHealthy();

        List<Future<?>> awaits = List.of(timed, untimed);
        boolean sameMaster = sentinel.master() == master;
        long count = latch.getCount();
        System.out.println("SentinelLatchRestartIT: " + (sameMaster ? "the master restarted" : "failed over")
                + ", count " + count + " after the restart");
        if (sameMaster) {
            assertThat(count).as("the master restarted empty; its replicas resynced from it").isZero();
        }
        if (count == 0) {
            for (Future<?> await : awaits) {
                assertThat(Workers.failureOf(await, Duration.ofSeconds(15))).isInstanceOf(LockLostException.class)
                        .hasMessageContaining("count-down latch '" + name + "'")
                        .hasMessageContaining("Redis lost the latch's count");
            }
            assertThat(latch.remainTimeToLive()).isEqualTo(-2L);
        } else {
            // failed over to a replica that has the latch; an await may have seen the restarted master empty first
            // (then it was told of the loss), the others wait for the count-downs
            for (Future<?> await : awaits) {
                if (await.isDone()) {
                    assertThat(Workers.failureOf(await, Duration.ZERO)).isInstanceOf(LockLostException.class);
                }
            }
            for (int i = 0; i < count; i++) {
                b.getCountDownLatch(name).countDown();
            }
            for (Future<?> await : awaits) {
                try {
                    assertThat(await.get(15, SECONDS)).isNotEqualTo(Boolean.FALSE);
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(LockLostException.class);
                }
            }
        }
    }
}
