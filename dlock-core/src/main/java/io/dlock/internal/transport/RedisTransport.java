package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.dlock.internal.wakeup.PubSubPort;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The connections of one client to one Redis deployment, whatever its kind: a command connection, a pub/sub
 * connection and what differs between deployments (how unlock notifications are published, which node a
 * {@code WAIT} must go to, how keys map to hash slots).
 *
 * <ul>
 *   <li>{@link NodeTransport}: standalone ({@code redis://}, {@code rediss://}) and Sentinel
 *       ({@code redis-sentinel://…/?sentinelMasterId=…}), one Redis master at a time.</li>
 *   <li>{@link ClusterTransport}: Redis Cluster ({@code redis-cluster://h:p,h:p}); commands go to the master of
 *       their first key's slot.</li>
 * </ul>
 * Implementations are thread-safe; nothing here blocks except {@link #open} and {@link #close}.
 */
public interface RedisTransport extends AutoCloseable {

    /** What the transport tells the client about pub/sub. Called on Lettuce's I/O threads: must not block. */
    interface Listener {
        /** A message arrived on a subscribed channel (plain or sharded). */
        void message(String channel, String message);

        /**
         * Subscriptions were (re)established after a reconnect, a failover or a topology change: messages sent
         * meanwhile may have been missed.
         */
        void resubscribed();
    }

    /**
     * Connects to {@code endpoint} (made from {@code config} by {@link Endpoint#of}); blocks until connected or the
     * command timeout passed.
     *
     * @throws RuntimeException (Lettuce's) when the deployment cannot be reached
     */
    static RedisTransport open(LockClientConfig config, Endpoint endpoint) {
        return endpoint.isCluster() ? ClusterTransport.open(config, endpoint) : NodeTransport.open(config, endpoint);
    }

    /**
     * Async commands; keyed commands (scripts included, routed by their first key) go to the master that owns the key.
     * Futures complete on Lettuce's I/O threads.
     */
    RedisClusterAsyncCommands<String, String> commands();

    /** @return whether the command connection is up now (not closed, not reconnecting) */
    boolean connected();

    /** Subscribes channels for the {@link io.dlock.internal.wakeup.WakeupHub}. */
    PubSubPort pubSub();

    /** Starts delivering messages and resubscription signals to {@code listener}; call once, before subscribing. */
    void listen(Listener listener);

    /**
     * The publish command passed to the scripts (ARGV): {@code "publish"}, or {@code "both"} (a {@code PUBLISH} and an
     * {@code SPUBLISH}) on a cluster with sharded pub/sub, so that subscribers of either kind hear it.
     */
    String publishCommand();

    /** @return the hash slot of {@code key} on a cluster; 0 for every key elsewhere (one group) */
    int slot(String key);

    /**
     * Sends {@code WAIT replicas timeoutMillis} over the connection that carried the last write of {@code key}, so
     * that it covers that write.
     *
     * @return the number of replicas that acknowledged it
     */
    CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis);

    /**
     * @return the run ids of the servers behind the keys ({@code INFO server} {@code run_id}), by which a caller tells
     *         that Redis restarted or failed over since it last read a key; forgotten whenever a connection drops
     */
    ServerRuns serverRuns();

    /** @return where it is connected, without credentials ({@link Endpoint#description()}), for messages */
    String describe();

    /** Closes the connections and the client; blocks for at most about two seconds. Never throws. */
    @Override
    void close();

    /** Longest pause between two reconnect attempts of a connection (Lettuce's default grows to 30 s). */
    Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

    /**
     * Keeps {@code runs} exact: forgets every run id it cached whenever a connection of {@code client} drops (the
     * server behind it may be restarting) or a new one is made (it may lead to another node: a Sentinel failover
     * switches the master connection without dropping the old one). Lettuce calls the listener on the connection's
     * event loop, before a reconnect can start and before the new connection carries any command, so a run id cached
     * is never read for a reply that came over a connection made after it ({@link ServerRuns#current}).
     *
     * @return removes the listener (on close)
     */
    static Runnable forgetRunsOnConnectionChange(AbstractRedisClient client, ServerRuns runs) {
        RedisConnectionStateListener listener = new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection,
                                         SocketAddress address) {
                runs.forgetAll();
            }

            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                runs.forgetAll();
            }
        };
        client.addListener(listener);
        return () -> client.removeListener(listener);
    }

    /**
     * Lettuce resources of one client: its own event loops, and reconnect attempts that back off exponentially but
     * never wait more than {@link #MAX_RECONNECT_DELAY}, so that a client notices within a second that Redis is back
     * after an outage of any length. Shut down by the transport that created them.
     */
    static ClientResources newResources() {
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ZERO, MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
                .build();
    }

    /** Shuts {@link #newResources() resources} down, waiting for at most about two seconds; never throws. */
    static void shutdown(ClientResources resources) {
        try {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(3, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // best effort: the event loops are daemon threads
        }
    }
}
