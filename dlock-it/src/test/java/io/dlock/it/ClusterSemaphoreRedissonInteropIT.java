package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * {@link SemaphoreRedissonInteropIT} on a Redis Cluster (three masters, one replica each): Redisson in its default
 * {@code shardedSubscriptionMode AUTO} listens and publishes with sharded pub/sub on Redis 7+, dlock too.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterSemaphoreRedissonInteropIT extends SemaphoreRedissonInteropIT {
}
