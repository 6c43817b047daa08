package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * {@link RedissonInteropIT} on a Redis Cluster (three masters, one replica each), Redisson in its default
 * {@code shardedSubscriptionMode AUTO}: on Redis 7+ it publishes with {@code SPUBLISH} and listens with
 * {@code SSUBSCRIBE}, so the wake-ups in both directions go through dlock's cluster pub/sub.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterRedissonInteropIT extends RedissonInteropIT {
}
