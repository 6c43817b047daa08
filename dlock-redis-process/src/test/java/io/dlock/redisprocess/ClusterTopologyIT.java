package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ClusterTopologyIT {

    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    void slotsAreComputedAsRedisDoes() {
        // values from the Redis Cluster specification and redis-cli CLUSTER KEYSLOT
        assertThat(ClusterTopology.slot("foo")).isEqualTo(12182);
        assertThat(ClusterTopology.slot("123456789")).isEqualTo(0x31C3 % 16384);
        assertThat(ClusterTopology.slot("{user1000}.following")).isEqualTo(ClusterTopology.slot("user1000"));
        assertThat(ClusterTopology.slot("foo{}{bar}")).as("an empty first tag: the whole key")
                .isNotEqualTo(ClusterTopology.slot("bar"));
        assertThat(ClusterTopology.slot("foo{{bar}}zap")).isEqualTo(ClusterTopology.slot("{bar"));
    }

    @Test
    void startsThreeShardsWithOneReplicaEachAndAgreesWithRedisAboutSlots() {
        long started = System.nanoTime();
        try (ClusterTopology cluster = ClusterTopology.start()) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("start-up time").isLessThan(
                    Duration.ofSeconds(10));
            assertThat(cluster.nodes()).hasSize(6).allMatch(RedisServer::isRunning);
            assertThat(cluster.uri()).startsWith("redis-cluster://127.0.0.1:")
                    .contains(cluster.nodes().stream().map(n -> "127.0.0.1:" + n.port()).toList()
                            .toArray(String[]::new));
            List<RedisServer> masters = cluster.masters();
            assertThat(masters).containsExactlyElementsOf(cluster.nodes().subList(0, 3));
            for (RedisServer master : masters) {
                assertThat(cluster.replicasOf(master)).hasSize(1);
            }
            for (String key : List.of("foo", "orders:42", "{tag}x")) {
                int slot = ClusterTopology.slot(key);
                assertThat(cluster.masterOf(0).command(SHORT, "CLUSTER", "KEYSLOT", key))
                        .isEqualTo(Integer.toString(slot));
                RedisServer owner = cluster.masterFor(key);
                assertThat(owner.command(SHORT, "SET", key, "v")).isEqualTo("OK");
                assertThat(owner.command(SHORT, "GET", key)).isEqualTo("v");
            }
            cluster.flushAll();
            for (RedisServer master : cluster.masters()) {
                assertThat(master.command(SHORT, "DBSIZE")).isEqualTo("0");
            }
            assertThatThrownBy(() -> cluster.masterOf(ClusterTopology.SLOTS))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void failsOverKillsRecoversAndLeavesNothingRunning() {
        List<RedisServer> nodes;
        try (ClusterTopology cluster = ClusterTopology.start()) {
            nodes = cluster.nodes();
            int slot = ClusterTopology.slot("orders:42");
            RedisServer old = cluster.masterOf(slot);
            RedisServer replica = cluster.replicasOf(old).get(0);
            old.command(SHORT, "SET", "orders:42", "kept");

            RedisServer promoted = cluster.failover(slot);
            assertThat(promoted).isSameAs(replica);
            assertThat(cluster.masterOf(slot)).isSameAs(replica);
            assertThat(cluster.replicasOf(replica)).containsExactly(old);
            assertThat(promoted.command(SHORT, "GET", "orders:42")).as("a coordinated failover loses nothing")
                    .isEqualTo("kept");

            RedisServer survivor = cluster.killMasterOf(slot);
            assertThat(survivor).isSameAs(old);
            assertThat(replica.isRunning()).isFalse();
            try {
                cluster.recover();
            } catch (StartFailedException e) {
                // a server bug, not the kit's: Valkey 8.1.1 may crash (SIGSEGV in genClusterInfoString, its crash
                // report) restarting a node killed with SIGKILL; valkey-io/valkey#3170, fixed by #3173 after 8.1.1
                // (the log tail may show only the crash report's end: its CLUSTER NODES section)
                String log = e.getMessage();
                Assumptions.assumeFalse(log.contains("genClusterInfoString") || log.contains("BUG REPORT")
                                || log.contains("------ CLUSTER NODES OUTPUT ------"),
                        "skipped: the server crashed restarting a killed node (valkey-io/valkey#3170)");
                throw e;
            }
            assertThat(replica.isRunning()).isTrue();
            assertThat(cluster.masterOf(slot)).isSameAs(old);
            assertThat(cluster.replicasOf(old)).as("the killed master rejoined as a replica").containsExactly(replica);

            cluster.stop();
            assertThat(cluster.nodes()).noneMatch(RedisServer::isRunning);
            cluster.recover();
            assertThat(cluster.masters()).hasSize(3);
        }
        assertThat(nodes).noneMatch(RedisServer::isRunning);
        for (RedisServer node : nodes) {
            assertThat(ProcessHandle.of(node.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        }
    }
}
