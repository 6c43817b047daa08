package io.dlock.it;

import io.dlock.testkit.Topology;

/** {@link SemaphoreRedissonInteropIT} through Redis Sentinel: dlock and Redisson both follow the master its Sentinels name. */
@Topology(Topology.Kind.SENTINEL)
class SentinelSemaphoreRedissonInteropIT extends SemaphoreRedissonInteropIT {
}
