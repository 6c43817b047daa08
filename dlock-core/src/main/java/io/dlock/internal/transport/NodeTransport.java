package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.dlock.internal.wakeup.PubSubPort;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One Redis master at a time: a standalone server ({@code redis://}, {@code rediss://}), or the master that Redis
 * Sentinel names ({@code redis-sentinel://h:p[,h:p…]/?sentinelMasterId=name}, parsed by Lettuce).
 *
 * <h2>Sentinel</h2>
 * Commands use Lettuce's master/replica connection, which asks the Sentinels for the master at connect time and
 * listens to their events ({@code +switch-master} …), so it moves to a promoted replica after the switch: at once, or
 * up to 5 s later when an earlier event of the same failover already caused a refresh (Lettuce refreshes at most once
 * per 5 s). Until it moves it keeps using the old master, which Sentinel leaves running as a master for some 8 s: what
 * it writes there meanwhile is lost (see {@code syncReplicas}), and a renewal there does not extend the hold on the new
 * master, so a watchdog hold with a short lease may expire on the new master and be reported lost.
 * The pub/sub connection asks the Sentinels for the master whenever it (re)connects; it moves when its connection
 * drops, which Sentinel causes itself when it turns the old master into a replica ({@code CLIENT KILL TYPE pubsub}).
 * Until then waiters may miss unlock messages published on the new master; every wait is bounded by the lock's TTL,
 * and the reconnect wakes every waiter.
 */
final class NodeTransport implements RedisTransport {
    private static final Logger log = LoggerFactory.getLogger(NodeTransport.class);

    private final String description;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    /** One master at a time: one run id; {@code INFO} goes where the commands go (the master Sentinel names). */
    private final ServerRuns runs;
    private final Runnable runEvents;
    /** A standalone server, no Sentinel: commands and pub/sub reach that one server ({@link PubSubPort}). */
    private final boolean standalone;

    private NodeTransport(String description, ClientResources resources, RedisClient client,
                          StatefulRedisConnection<String, String> connection,
                          StatefulRedisPubSubConnection<String, String> pubSub, boolean standalone) {
        this.description = description;
        this.standalone = standalone;
        this.resources = resources;
        this.client = client;
        this.connection = connection;
        this.pubSub = pubSub;
        this.runs = new ServerRuns(key -> "master", key -> connection.async().info("server").toCompletableFuture());
        this.runEvents = RedisTransport.forgetRunsOnConnectionChange(client, runs);
    }

    /** Connects to {@code endpoint} (a {@link Endpoint#node() node} endpoint, timeouts and TLS checks set). */
    static NodeTransport open(LockClientConfig config, Endpoint endpoint) {
        RedisURI uri = endpoint.node();
        Duration timeout = config.commandTimeout();
        io.lettuce.core.SslOptions ssl = Tls.options(config.tls());
        ClientResources resources = RedisTransport.newResources();
        RedisClient client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
                .timeoutOptions(CommandTimeouts.options(config))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
                .sslOptions(ssl)
                .build());
        StatefulRedisConnection<String, String> connection = null;
        try {
            connection = uri.getSentinels().isEmpty() ? client.connect(StringCodec.UTF8, uri)
                    : MasterReplica.connect(client, StringCodec.UTF8, uri);
            StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8, uri);
            return new NodeTransport(endpoint.description(), resources, client, connection, pubSub,
                    uri.getSentinels().isEmpty());
        } catch (RuntimeException e) {
            if (connection != null) {
                connection.closeAsync();
            }
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).whenComplete((ok, error) -> resources.shutdown());
            throw e;
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
                return pubSub.async().subscribe(channel).toCompletableFuture();
            }

            @Override
            public CompletableFuture<Void> unsubscribe(String channel) {
                return pubSub.async().unsubscribe(channel).toCompletableFuture();
            }

            @Override
            public boolean sameServerAsScripts() {
                return standalone;
            }
        };
    }

    @Override
    public void listen(Listener listener) {
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                listener.message(channel, message);
            }
        });
        pubSub.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> c, SocketAddress address) {
                // Lettuce subscribes again after a reconnect; messages published meanwhile are lost.
                listener.resubscribed();
            }
        });
    }

    @Override
    public String publishCommand() {
        return "publish";
    }

    @Override
    public int slot(String key) {
        return 0;
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(String key, int replicas, long timeoutMillis) {
        // one connection carries every command of this client, so WAIT covers the write just made
        return connection.async().waitForReplication(replicas, timeoutMillis).toCompletableFuture();
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
