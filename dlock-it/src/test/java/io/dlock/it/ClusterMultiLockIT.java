package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.MultiLock;
import io.dlock.it.support.Subscribers;
import io.dlock.it.support.Workers;
import io.dlock.redisprocess.Await;
import io.dlock.testkit.Topology;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Future;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MultiLockIT} on a Redis Cluster: the members' names ({@code …:a}, {@code …:b}, {@code …:c}) hash to
 * different slots, so every test's multi-lock spans slots; Redisson uses sharded pub/sub there.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterMultiLockIT extends MultiLockIT {

    @Test
    void membersOnDifferentSlots(LockClient client) {
        assertThat(Set.of(SlotHash.getSlot(a), SlotHash.getSlot(b), SlotHash.getSlot(c))).hasSize(3);
        MultiLock multi = client.getMultiLock(client.getLock(a), client.getFencedLock(b),
                client.getReadWriteLock(c).readLock());
        multi.lock();
        assertThat(raw.exists(a) && raw.exists(b) && raw.exists(c)).isTrue();
        multi.unlock();
        assertThat(raw.exists(a) || raw.exists(b) || raw.exists(c)).isFalse();
    }

    /** Names of one slot ({@code {…}:x}): the plain members are taken in one script, and none while one is held. */
    @Test
    void membersOnOneSlotAreTakenInOneStep(LockClient client, LockClient other) throws Exception {
        String x = "{" + a + "}:x";
        String y = "{" + a + "}:y";
        assertThat(SlotHash.getSlot(x)).isEqualTo(SlotHash.getSlot(y));
        MultiLock multi = client.getMultiLock(client.getLock(x), client.getLock(y));
        DistributedLock blocker = other.getLock(y);
        blocker.lock();
        assertThat(multi.tryLock(300, MILLISECONDS)).isFalse();
        assertThat(raw.exists(x)).isFalse();
        Future<Boolean> waiter = workers.submit(() -> {
            boolean held = multi.tryLock(20, SECONDS);
            if (held) {
                multi.unlock();
            }
            return held;
        });
        Await.until(Subscribers.SETTLE, () -> Subscribers.count(raw, y) >= 1, "the multi-lock waits on y's channel");
        assertThat(waiter).as("waiting").isNotDone();
        Await.during(Duration.ofMillis(300), () -> !raw.exists(x), "nothing held while y is awaited");
        blocker.unlock();
        assertThat(Workers.get(waiter, Duration.ofSeconds(20))).isTrue();
        assertThat(raw.exists(x) || raw.exists(y)).isFalse();
    }
}
