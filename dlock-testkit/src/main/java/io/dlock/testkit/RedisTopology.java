package io.dlock.testkit;

/**
 * A running Redis deployment that a test can connect to. Today only {@link RedisServer} (one standalone
 * {@code redis-server}) implements it; Sentinel and Cluster topologies are planned and will implement it too, so
 * code that only needs an address and a way to shut everything down should depend on this interface.
 *
 * <p>Implementations are thread-safe.
 */
public interface RedisTopology extends AutoCloseable {

    /**
     * @return the URI a client connects with, e.g. {@code redis://127.0.0.1:6379}; never blocks
     */
    String uri();

    /**
     * Stops every process of this topology and deletes its files. Blocks until the processes have exited.
     * Idempotent; does not throw checked exceptions.
     */
    @Override
    void close();
}
