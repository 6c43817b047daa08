package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * {@link LeasedSemaphoreIT} on a Redis Cluster (three masters, one replica each): the count, the permit table and the
 * channel share the name's slot, and the watchdog renews per semaphore.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterLeasedSemaphoreIT extends LeasedSemaphoreIT {
}
