package io.dlock.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.SentinelTopology;

/**
 * Which Redis deployment {@link RedisExtension} starts for a test class (inherited by subclasses, and used by
 * {@code @Nested} classes of the annotated class). Without it, a class gets a standalone {@link RedisServer}.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * @Topology(Topology.Kind.CLUSTER)
 * class MyClusterIT {
 *     @Test
 *     void locks(ClusterTopology cluster, LockClient client) { ... }   // client connected to cluster.uri()
 * }
 * }</pre>
 *
 * <p>A subclass of a test class may pick another kind, so one suite runs on several deployments.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Topology {

    /** The deployment to start. */
    Kind value();

    /** The deployments {@link RedisExtension} can start. */
    enum Kind {
        /** One {@link RedisServer}. */
        STANDALONE,
        /** A {@link SentinelTopology} with default settings: one master, two replicas, three Sentinels. */
        SENTINEL,
        /** A {@link ClusterTopology} with default settings: three masters with one replica each. */
        CLUSTER
    }
}
