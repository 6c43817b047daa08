package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.dlock.internal.wakeup.PubSubPort;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A Redis Cluster ({@code redis-cluster://h:p[,h:p…]}, or {@code rediss-cluster://} for TLS; the nodes are seeds, the
 * rest of the topology is discovered).
 *
 * <h2>Commands</h2>
 * Lettuce's cluster connection sends each command to the master of its first key's slot and follows {@code MOVED} and
 * {@code ASK}. Every key a dlock script touches carries the lock's hash tag ({@code prefix:{NAME}},
 * docs/protocol.md §8), so a script never spans slots. The topology is refreshed every
 * {@value #TOPOLOGY_REFRESH_SECONDS} s, and at once (at most once a second) on redirections, uncovered slots and the
 * first failed reconnect to a node, so that a failover is noticed within moments of the cluster electing the replica.
 * Until then commands for the lost master's slots fail (within the command timeout) like any unavailability.
 *
 * <h2>Pub/sub</h2>
 * Redisson 4.7 in its default mode ({@code shardedSubscriptionMode AUTO}) publishes unlock messages with
 * {@code SPUBLISH} and listens with {@code SSUBSCRIBE} when the cluster supports sharded pub/sub (Redis 7+), and uses
 * {@code PUBLISH}/{@code SUBSCRIBE} otherwise (or with {@code OFF}). To hear and be heard by every Redisson
 * configuration:
 * <ul>
 *   <li>dlock's scripts publish with both commands ({@link #publishCommand()} {@code "both"}) when sharded pub/sub is
 *       supported (probed once at connect with {@code PUBSUB SHARDNUMSUB}), else with {@code PUBLISH};</li>
 *   <li>a waiter's channel is subscribed with {@code SUBSCRIBE} on the pub/sub connection's node ({@code PUBLISH} is
 *       broadcast to every node of a cluster) and, when sharded pub/sub is supported, with {@code SSUBSCRIBE} on the
 *       master owning the channel's slot (the lock's own slot).</li>
 * </ul>
 * A dlock waiter therefore hears each dlock release twice (once per kind): the second message wakes at most one more
 * waiter of the client for one extra attempt. A shard subscription follows its slot: when the owning node drops it
 * (the slot moved, the master became a replica) or a topology refresh shows another owner, it is made again on the
 * current owner and every waiter is woken, since messages may have been missed meanwhile. Every wait is bounded by the
 * lock's TTL in any case. A shard subscription is dropped on the node it was made on, a replica by then or not (Redis
 * 8.0 takes SUNSUBSCRIBE on a replica only from a {@code READONLY} connection: {@link #sunsubscribe}).
 */
final class ClusterTransport implements RedisTransport {
    static final long TOPOLOGY_REFRESH_SECONDS = 5;
    private static final Logger log = LoggerFactory.getLogger(ClusterTransport.class);

    private final String description;
    private final ClientResources resources;
    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<String, String> connection;
    private final StatefulRedisClusterPubSubConnection<String, String> pubSub;
    private final boolean sharded;
    /** Shard channels subscribed, with the node their {@code SSUBSCRIBE} went to ({@code host:port}). */
    private final Map<String, String> shardSubscriptions = new ConcurrentHashMap<>();
    private volatile Disposable topologyEvents;
    /** Run ids per master ({@code host:port} of the slot's master); {@code INFO} goes to that master. */
    private final ServerRuns runs;
    private final Runnable runEvents;

    private ClusterTransport(String description, ClientResources resources, RedisClusterClient client,
                             StatefulRedisClusterConnection<String, String> connection,
                             StatefulRedisClusterPubSubConnection<String, String> pubSub, boolean sharded) {
        this.description = description;
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.pubSub = pubSub;
        this.sharded = sharded;
        this.runs = new ServerRuns(this::masterOf, this::masterInfo);
        this.runEvents = RedisTransport.forgetRunsOnConnectionChange(client, runs);
    }

    /** @return {@code host:port} of the master serving {@code key}'s slot now, or {@code slot:N} when none is known */
    private String masterOf(String key) {
        RedisClusterNode owner = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        return owner == null ? "slot:" + SlotHash.getSlot(key) : address(owner);
    }

    /** {@code INFO server} on the master serving {@code key}'s slot now. */
    private CompletableFuture<String> masterInfo(String key) {
        RedisClusterNode owner = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        if (owner == null) {
            return CompletableFuture.failedFuture(new RedisException("no master known for the slot of " + key));
        }
        return connection.getConnectionAsync(owner.getUri().getHost(), owner.getUri().getPort())
                .thenCompose(node -> node.async().info("server"));
    }

    /** Connects to {@code endpoint} (a {@link Endpoint#isCluster() cluster} endpoint, timeouts and TLS checks set). */
    static ClusterTransport open(LockClientConfig config, Endpoint endpoint) {
        Duration timeout = config.commandTimeout();
        List<RedisURI> seeds = endpoint.seeds();
        io.lettuce.core.SslOptions ssl = Tls.options(config.tls());
        ClientResources resources = RedisTransport.newResources();
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(CommandTimeouts.options(config))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
                .sslOptions(ssl)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(Duration.ofSeconds(TOPOLOGY_REFRESH_SECONDS))
                        .enableAllAdaptiveRefreshTriggers()
                        .refreshTriggersReconnectAttempts(1)
                        .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                        .build())
                .build());
        StatefulRedisClusterConnection<String, String> connection = null;
        try {
            connection = client.connect(StringCodec.UTF8);
            StatefulRedisClusterPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
            boolean sharded = supportsShardedPubSub(connection, timeout);
            return new ClusterTransport(endpoint.description(), resources, client, connection, pubSub, sharded);
        } catch (RuntimeException e) {
            if (connection != null) {
                connection.closeAsync();
            }
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).whenComplete((ok, error) -> resources.shutdown());
            throw e;
        }
    }

    /** Redisson's AUTO probe: sharded pub/sub is there when {@code PUBSUB SHARDNUMSUB} is understood. */
    private static boolean supportsShardedPubSub(StatefulRedisClusterConnection<String, String> connection,
                                                 Duration timeout) {
        try {
            connection.async().pubsubShardNumsub("dlock:probe").get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while probing for sharded pub/sub", e);
        } catch (Exception e) {
            log.debug("no sharded pub/sub on this cluster ({}); publishing with PUBLISH only", e.toString());
            return false;
        }
    }

    @Override
    public RedisClusterAsyncCommands<String, String> commands() {
        return connection.async();
    }

    @Override
    public boolean connected() {
        return connection.isOpen();
    }

    @Override
    public PubSubPort pubSub() {
        return new PubSubPort() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                CompletableFuture<Void> plain = pubSub.async().subscribe(channel).toCompletableFuture();
                if (!sharded) {
                    return plain;
                }
                return CompletableFuture.allOf(plain, shardSubscribe(channel));
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                CompletableFuture<Void> plain = pubSub.async().unsubscribe(channel).toCompletableFuture();
                if (sharded) {
                    String node = shardSubscriptions.remove(channel);
                    if (node != null) {
                        shardUnsubscribe(channel, node);
                    }
                }
                return plain;
            }
        };
    }

    /** SSUBSCRIBE on the current owner of the channel's slot (Lettuce routes it there), remembering the node. */
    private CompletableFuture<Void> shardSubscribe(String channel) {
        RedisClusterNode owner = pubSub.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
        if (owner != null) {
            shardSubscriptions.put(channel, address(owner));
        }
        return pubSub.async().ssubscribe(channel).toCompletableFuture();
    }

    /**
     * SUNSUBSCRIBE on the node the subscription was made on, wherever the slot is now, through that node's pub/sub
     * connection (the one Lettuce routed the SSUBSCRIBE through). Best effort.
     */
    private void shardUnsubscribe(String channel, String node) {
        int colon = node.lastIndexOf(':');
        CompletableFuture<?> done;
        try {
            done = pubSub.getConnectionAsync(node.substring(0, colon), Integer.parseInt(node.substring(colon + 1)))
                    .thenCompose(c -> sunsubscribe(c.async(), channel));
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        done.whenComplete((ok, error) -> {
            if (error != null) {
                log.debug("SUNSUBSCRIBE {} on {} failed: {}", channel, node, error.toString());
            }
        });
    }

    /**
     * SUNSUBSCRIBE on one node, which may be a replica by now: a failover demoted it, or the subscription was made
     * again on it while this client's topology still showed it as the slot's master (a replica takes SSUBSCRIBE for
     * its master's slots on every server line). Redis 7.0 and Valkey 8.1 take SUNSUBSCRIBE there too; Redis 8.0
     * answers it with {@code MOVED} unless the connection is {@code READONLY} (a side effect of redis/redis#13276, on
     * the redirection of sharded pub/sub in transactions), and the subscription would stay for the connection's life,
     * made again by Lettuce on each reconnect. So a {@code MOVED} answer makes the connection {@code READONLY} and the
     * SUNSUBSCRIBE is sent again; for a connection that only subscribes, READONLY changes nothing else.
     */
    private static CompletionStage<Void> sunsubscribe(RedisPubSubAsyncCommands<String, String> node, String channel) {
        return node.sunsubscribe(channel).handle((ok, error) -> error).thenCompose(error -> {
            if (error == null) {
                return CompletableFuture.completedFuture(null);
            }
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            String message = cause.getMessage();
            if (!(cause instanceof RedisCommandExecutionException) || message == null
                    || !message.startsWith("MOVED")) {
                return CompletableFuture.failedFuture(cause);
            }
            node.readOnly();
            return node.sunsubscribe(channel);
        });
    }

    /** Makes every shard subscription whose slot moved again on the new owner; true if any moved. */
    private boolean followMovedSlots() {
        boolean moved = false;
        for (Map.Entry<String, String> entry : shardSubscriptions.entrySet()) {
            String channel = entry.getKey();
            RedisClusterNode owner = pubSub.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
            if (owner != null && !address(owner).equals(entry.getValue())
                    && shardSubscriptions.replace(channel, entry.getValue(), address(owner))) {
                resubscribeShard(channel, entry.getValue());
                moved = true;
            }
        }
        return moved;
    }

    private void resubscribeShard(String channel, String oldNode) {
        log.debug("shard channel {} moves from {}", channel, oldNode);
        pubSub.async().ssubscribe(channel).whenComplete((ok, error) -> {
            if (error != null) {
                log.debug("SSUBSCRIBE {} failed; the next topology change retries: {}", channel, error.toString());
            }
        });
        if (oldNode != null) {
            shardUnsubscribe(channel, oldNode);
        }
    }

    private static String address(RedisClusterNode node) {
        return node.getUri().getHost() + ":" + node.getUri().getPort();
    }

    @Override
    public void listen(Listener listener) {
        pubSub.addListener(new RedisClusterPubSubAdapter<>() {
            @Override
            public void message(RedisClusterNode node, String channel, String message) {
                listener.message(channel, message);
            }

            @Override
            public void smessage(RedisClusterNode node, String channel, String message) {
                listener.message(channel, message);
            }

            @Override
            public void sunsubscribed(RedisClusterNode node, String channel, long count) {
                // still wanted: the node dropped it (its slots moved, or it became a replica), not us
                String subscribedOn = shardSubscriptions.get(channel);
                if (subscribedOn != null && (node == null || subscribedOn.equals(address(node)))) {
                    RedisClusterNode owner = pubSub.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
                    String target = owner != null ? address(owner) : subscribedOn;
                    if (shardSubscriptions.replace(channel, subscribedOn, target)) {
                        resubscribeShard(channel, target.equals(subscribedOn) ? null : subscribedOn);
                        listener.resubscribed();
                    }
                }
            }
        });
        pubSub.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> c, SocketAddress address) {
                listener.resubscribed();
            }
        });
        if (sharded) {
            topologyEvents = client.getResources().eventBus().get()
                    .filter(ClusterTopologyChangedEvent.class::isInstance)
                    .subscribe(event -> {
                        if (followMovedSlots()) {
                            listener.resubscribed();
                        }
                    }, error -> log.warn("cluster topology events failed", error));
        }
    }

    @Override
    public String publishCommand() {
        return sharded ? "both" : "publish";
    }

    @Override
    public int slot(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
        // The connection that carried the script is the one for the slot master's host and port: WAIT there.
        try {
            RedisClusterNode owner = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
            if (owner == null) {
                return CompletableFuture.failedFuture(new RedisException("no master known for the slot of " + key));
            }
            return connection.getConnectionAsync(owner.getUri().getHost(), owner.getUri().getPort())
                    .thenCompose(node -> node.async().waitForReplication(replicas, timeoutMillis));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public ServerRuns serverRuns() {
        return runs;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        Disposable events = topologyEvents;
        if (events != null) {
            events.dispose();
        }
        runEvents.run();
        try {
            pubSub.close();
            connection.close();
        } catch (RuntimeException e) {
            log.debug("closing connections to {}", description, e);
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        RedisTransport.shutdown(resources);
    }
}
