package io.dlock.it.support;

import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.redisprocess.SentinelTopology;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/** Redisson 4.7 clients on a test deployment, with small pools and Redisson's defaults otherwise. */
public final class Redissons {
    private Redissons() {
    }

    /**
     * @param watchdogMs Redisson's {@code lockWatchdogTimeout}
     * @return a client for a standalone server, the master of a Sentinel deployment, or a cluster (default
     *         {@code shardedSubscriptionMode AUTO}: sharded pub/sub on Redis 7+)
     */
    public static RedissonClient connect(RedisTopology topology, long watchdogMs) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdogMs);
        if (topology instanceof ClusterTopology cluster) {
            config.useClusterServers()
                    .addNodeAddress(cluster.nodes().stream().map(RedisServer::uri).toArray(String[]::new))
                    .setMasterConnectionMinimumIdleSize(1)
                    .setMasterConnectionPoolSize(4)
                    .setSlaveConnectionMinimumIdleSize(1)
                    .setSlaveConnectionPoolSize(2)
                    .setSubscriptionConnectionMinimumIdleSize(1)
                    .setSubscriptionConnectionPoolSize(2)
                    .setReadMode(ReadMode.MASTER); // a replica may not have a write the test just made
        } else if (topology instanceof SentinelTopology sentinel) {
            config.useSentinelServers()
                    .setMasterName(sentinel.masterName())
                    .addSentinelAddress(sentinel.sentinels().stream().map(RedisServer::uri).toArray(String[]::new))
                    .setCheckSentinelsList(false)
                    .setReadMode(ReadMode.MASTER)
                    .setMasterConnectionMinimumIdleSize(1)
                    .setMasterConnectionPoolSize(4)
                    .setSlaveConnectionMinimumIdleSize(1)
                    .setSlaveConnectionPoolSize(2)
                    .setSubscriptionConnectionMinimumIdleSize(1)
                    .setSubscriptionConnectionPoolSize(2);
        } else {
            config.useSingleServer()
                    .setAddress(topology.uri())
                    .setConnectionMinimumIdleSize(1)
                    .setConnectionPoolSize(4)
                    .setSubscriptionConnectionMinimumIdleSize(1)
                    .setSubscriptionConnectionPoolSize(2);
        }
        return Redisson.create(config);
    }
}
