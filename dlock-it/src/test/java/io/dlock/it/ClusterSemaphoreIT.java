package io.dlock.it;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.Topology;
import org.junit.jupiter.api.Disabled;

/** {@link SemaphoreIT} on a Redis Cluster (three masters, one replica each; sharded pub/sub on Redis 7+). */
@Topology(Topology.Kind.CLUSTER)
class ClusterSemaphoreIT extends SemaphoreIT {

    @Override
    @Disabled("pauses a standalone server; outages of a Cluster are ClusterFailoverIT's subject")
    void anUnlimitedWaitOutlastsAnOutageAndATimedOneFails(RedisServer server, LockClient client) {
    }
}
