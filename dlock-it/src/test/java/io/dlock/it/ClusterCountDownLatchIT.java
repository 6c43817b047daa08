package io.dlock.it;

import io.dlock.DistributedCountDownLatch;
import io.dlock.LockClient;
import io.dlock.it.support.Subscribers;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CountDownLatchIT} on a Redis Cluster (Redisson with sharded pub/sub on Redis 7), plus the names Redisson
 * cannot use there: hash-tagged ones, whose Redisson channel hashes to another slot than the key.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterCountDownLatchIT extends CountDownLatchIT {

    @Test
    void aHashTaggedNameWorks(LockClient a, LockClient b) throws Exception {
        String tagged = "{" + name + "}:done";
        DistributedCountDownLatch ours = a.getCountDownLatch(tagged);
        assertThat(ours.trySetCount(2, Duration.ofMinutes(1))).isTrue();
        assertThat(ours.getCount()).isEqualTo(2);
        CompletableFuture<Void> asyncWaiter = b.getCountDownLatch(tagged).awaitAsync();
        Future<Boolean> syncWaiter = workers.submit(() -> a.getCountDownLatch(tagged).await(30, SECONDS));
        Subscribers.await(raw, tagged, 2); // both clients listen
        ours.countDown();
        Await.during(Duration.ofMillis(200), () -> !asyncWaiter.isDone() && !syncWaiter.isDone(),
                "the awaiters wait while the count is 1");
        b.getCountDownLatch(tagged).countDown();
        asyncWaiter.get(WAKE_UP_MS, MILLISECONDS);
        assertThat(io.dlock.it.support.Workers.get(syncWaiter, Duration.ofMillis(WAKE_UP_MS))).isTrue();
        assertThat(raw.exists(tagged)).isFalse();

        // a name whose '{' opens no hash tag, and one with an empty tag: every name works
        for (String odd : new String[]{name + "{x", name + "{}y", "{}" + name}) {
            DistributedCountDownLatch latch = a.getCountDownLatch(odd);
            assertThat(latch.trySetCount(1)).isTrue();
            CompletableFuture<Void> waiter = b.getCountDownLatch(odd).awaitAsync();
            Subscribers.await(raw, odd, 1);
            latch.countDown();
            waiter.get(WAKE_UP_MS, MILLISECONDS);
            assertThat(latch.delete()).isFalse();
        }
    }
}
