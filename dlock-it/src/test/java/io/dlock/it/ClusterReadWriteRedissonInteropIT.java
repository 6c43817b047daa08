package io.dlock.it;

import io.dlock.testkit.Topology;

/** {@link ReadWriteRedissonInteropIT} on a Redis Cluster, Redisson with sharded pub/sub (Redis 7+). */
@Topology(Topology.Kind.CLUSTER)
class ClusterReadWriteRedissonInteropIT extends ReadWriteRedissonInteropIT {
}
