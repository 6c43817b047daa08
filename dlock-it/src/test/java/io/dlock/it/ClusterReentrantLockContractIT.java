package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The plain lock's contract ({@link ReentrantLockContractIT}, the whole {@link AbstractLockContractIT} included) on a
 * Redis Cluster: three masters with one replica each; each test's lock name hashes to its own slot. The outage test
 * stops and restarts every node.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterReentrantLockContractIT extends ReentrantLockContractIT {

    @Test
    void aNameWhoseBraceOpensNoHashTagIsRefused(LockClient a) {
        for (String bad : new String[] {"a{b", "a{}b", "{"}) {
            assertThatThrownBy(() -> a.getLock(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad).hasMessageContaining("hash tag");
            assertThatThrownBy(() -> a.getFairLock(bad)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> a.getReadWriteLock(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        var tagged = on(a, "{orders}:42");
        assertThat(tagged.tryLock()).isTrue();
        tagged.unlock();
    }
}
