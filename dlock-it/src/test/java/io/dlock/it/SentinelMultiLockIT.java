package io.dlock.it;

import io.dlock.testkit.Topology;

/**
 * {@link MultiLockOneSlotIT} (and so every test of {@link MultiLockIT}) through Sentinel (one master, two replicas),
 * Redisson connected the same way: members taken one by one and in one script.
 */
@Topology(Topology.Kind.SENTINEL)
class SentinelMultiLockIT extends MultiLockOneSlotIT {
}
