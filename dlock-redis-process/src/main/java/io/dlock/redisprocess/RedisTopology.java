package io.dlock.redisprocess;

/**
 * A running Redis deployment that a test can connect to: {@link RedisServer} (one standalone {@code redis-server}),
 * {@link SentinelTopology} (a master, its replicas and Sentinels) or {@link ClusterTopology} (a Redis Cluster). Code
 * that only needs an address and a way to shut everything down should depend on this interface.
 *
 * <p>Implementations are thread-safe.
 */
public interface RedisTopology extends AutoCloseable {

    /**
     * @return the URI a client connects with ({@code LockClient.connect} accepts it): {@code redis://127.0.0.1:6379},
     *         {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,…/?sentinelMasterId=mymaster} or
     *         {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,…}; never blocks
     */
    String uri();

    /**
     * Stops every process of this topology and deletes its files. Blocks until the processes have exited.
     * Idempotent; does not throw checked exceptions.
     */
    @Override
    void close();
}
