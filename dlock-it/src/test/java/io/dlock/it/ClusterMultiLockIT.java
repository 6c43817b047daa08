package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.MultiLock;
import io.dlock.testkit.Topology;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import java.util.Set;

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
}
