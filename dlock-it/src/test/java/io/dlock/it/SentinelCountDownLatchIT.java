package io.dlock.it;

import io.dlock.testkit.Topology;

/** {@link CountDownLatchIT} through Sentinel (one master, two replicas), Redisson connected the same way. */
@Topology(Topology.Kind.SENTINEL)
class SentinelCountDownLatchIT extends CountDownLatchIT {
}
