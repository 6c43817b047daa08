package io.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.RedisTopology;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/** The extension on a cluster: the deployment and clients are injected, each test starts healthy and empty. */
@ExtendWith(RedisExtension.class)
@Topology(Topology.Kind.CLUSTER)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionTopologyIT {

    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    @Order(1)
    void injectsTheClustersDeploymentAndClients(ClusterTopology cluster, RedisTopology sameOne, LockClient client) {
        assertThat(sameOne).isSameAs(cluster);
        DistributedLock lock = client.getLock("orders:42");
        lock.lock();
        assertThat(cluster.masterFor("orders:42").command(SHORT, "EXISTS", "orders:42")).isEqualTo("1");
        lock.unlock();
        cluster.masterFor("orders:42").command(SHORT, "SET", "orders:42", "left behind");
        cluster.nodes().get(5).kill();
    }

    @Test
    @Order(2)
    void startsEveryTestHealthyAndEmpty(ClusterTopology cluster) {
        assertThat(cluster.nodes()).allMatch(RedisServer::isRunning);
        assertThat(cluster.masterFor("orders:42").command(SHORT, "EXISTS", "orders:42")).isEqualTo("0");
    }
}
