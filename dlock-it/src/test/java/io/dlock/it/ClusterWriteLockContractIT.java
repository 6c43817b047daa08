package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * The write side of the read-write lock ({@link WriteLockContractIT}) on a Redis Cluster: the per-hold timeout keys
 * that its scripts build from the {@code {NAME}} root stay in the name's slot.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterWriteLockContractIT extends WriteLockContractIT {
}
