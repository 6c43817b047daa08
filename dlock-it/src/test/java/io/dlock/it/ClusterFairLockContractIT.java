package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * The fair lock's contract ({@link FairLockContractIT}) on a Redis Cluster: its queue, deadlines and per-waiter
 * channels all carry the name's hash tag, so every script stays in one slot.
 */
@Topology(Topology.Kind.CLUSTER)
class ClusterFairLockContractIT extends FairLockContractIT {
}
