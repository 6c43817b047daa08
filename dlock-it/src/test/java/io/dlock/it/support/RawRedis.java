package io.dlock.it.support;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientListArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A plain Lettuce connection for looking at (and tampering with) what the library wrote, independent of it: to a
 * standalone server, to the master a Sentinel deployment names ({@code redis-sentinel://…}), or to a whole cluster
 * ({@code redis-cluster://…}, keyed commands go to the key's master). Reconnects by itself after a server restart.
 */
public final class RawRedis implements AutoCloseable {
    private static final String CLUSTER_SCHEME = "redis-cluster://";
    private static final String CARD_PREFIX = "dlock_client:";

    /** Reconnect attempts at least once a second, so that a test sees a restarted server soon (Lettuce: up to 30 s). */
    private final ClientResources resources = DefaultClientResources.builder()
            .reconnectDelay(Delay.exponential(Duration.ZERO, Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS)).build();
    private final AbstractRedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final StatefulRedisClusterConnection<String, String> cluster;

    private RawRedis(String uri) {
        if (uri.startsWith(CLUSTER_SCHEME)) {
            List<RedisURI> seeds = new ArrayList<>();
            for (String node : uri.substring(CLUSTER_SCHEME.length()).split(",")) {
                RedisURI seed = RedisURI.create("redis://" + node);
                seed.setTimeout(Duration.ofSeconds(5));
                seeds.add(seed);
            }
            RedisClusterClient clusterClient = RedisClusterClient.create(resources, seeds);
            this.client = clusterClient;
            this.cluster = clusterClient.connect();
            this.connection = null;
        } else {
            RedisURI redisUri = RedisURI.create(uri);
            redisUri.setTimeout(Duration.ofSeconds(5));
            RedisClient redisClient = RedisClient.create(resources, redisUri);
            this.client = redisClient;
            this.connection = redisClient.connect();
            this.cluster = null;
        }
    }

    public static RawRedis connect(String uri) {
        return new RawRedis(uri);
    }

    /** Commands; on a cluster keyed ones go to the key's master and {@code KEYS}, {@code DBSIZE} span all masters. */
    public RedisClusterCommands<String, String> sync() {
        return cluster != null ? cluster.sync() : connection.sync();
    }

    /** The owner field of a hold: {@code <clientId>:<ownerId>}. */
    public static String field(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }

    /** Script calls so far ({@code EVALSHA} and {@code EVAL}, from {@code INFO commandstats}; standalone only). */
    public long scriptCalls() {
        return commandCalls("evalsha") + commandCalls("eval");
    }

    /** Calls of {@code command} so far, from {@code INFO commandstats} (which counts those run by scripts too). */
    public long commandCalls(String command) {
        String prefix = "cmdstat_" + command + ":calls=";
        for (String line : sync().info("commandstats").split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    public Map<String, String> hgetall(String key) {
        return sync().hgetall(key);
    }

    public long pttl(String key) {
        return sync().pttl(key);
    }

    /**
     * The PTTLs of {@code keys} read by one script, so at one instant of the server: two TTLs compare exactly (to the
     * millisecond), where two PTTL calls would differ by the time between them. The keys must share a slot.
     */
    public List<Long> pttlsAtOnce(String... keys) {
        return sync().eval("local t = {} for i, k in ipairs(KEYS) do t[i] = redis.call('pttl', k) end return t",
                ScriptOutputType.MULTI, keys);
    }

    public boolean exists(String key) {
        return sync().exists(key) > 0;
    }

    /** @return the number of keys, the clients' cards left out (see {@link #keys()}) */
    public long dbsize() {
        return keys().size();
    }

    /**
     * @return every key but the clients' cards ({@code dlock_client:{CID}}, docs/protocol.md §6.1): each live client
     *         keeps one, whatever it holds, so "nothing left" means nothing else; {@link #cards()} lists them
     */
    public List<String> keys() {
        return allKeys().stream().filter(key -> !key.startsWith(CARD_PREFIX)).toList();
    }

    /** @return the keys of the clients' cards */
    public List<String> cards() {
        return allKeys().stream().filter(key -> key.startsWith(CARD_PREFIX)).toList();
    }

    private List<String> allKeys() {
        return cluster != null ? cluster.sync().keys("*") : connection.sync().keys("*");
    }

    /**
     * The channels anybody is subscribed to: {@code PUBSUB CHANNELS}; on a cluster, of every node, with the shard
     * channels ({@code PUBSUB SHARDCHANNELS}) as well where the server has sharded pub/sub (Redis 7.0+).
     */
    public List<String> channels() {
        if (cluster == null) {
            return connection.sync().pubsubChannels();
        }
        List<String> channels = new ArrayList<>();
        for (RedisClusterCommands<String, String> node : nodes()) {
            channels.addAll(node.pubsubChannels());
            if (hasShardedPubSub(node)) {
                channels.addAll(node.pubsubShardChannels());
            }
        }
        return channels;
    }

    /** Whether the server has sharded pub/sub ({@code SSUBSCRIBE}, {@code PUBSUB SHARDCHANNELS}): Redis 7.0 and later. */
    private static boolean hasShardedPubSub(RedisClusterCommands<String, String> node) {
        for (String line : node.info("server").split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                return Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
            }
        }
        return false;
    }

    /** PUBSUB NUMSUB for one channel (on a cluster: summed over every node; shard subscribers not included). */
    public long subscribers(String channel) {
        if (cluster == null) {
            Long n = connection.sync().pubsubNumsub(channel).get(channel);
            return n == null ? 0 : n;
        }
        long total = 0;
        for (RedisClusterCommands<String, String> node : nodes()) {
            total += node.pubsubNumsub(channel).getOrDefault(channel, 0L);
        }
        return total;
    }

    /** PUBSUB SHARDNUMSUB of one channel over every node of a cluster; 0 elsewhere and before Redis 7.0. */
    public long shardSubscribers(String channel) {
        if (cluster == null) {
            return 0;
        }
        long total = 0;
        for (RedisClusterCommands<String, String> node : nodes()) {
            if (hasShardedPubSub(node)) {
                total += node.pubsubShardNumsub(channel).getOrDefault(channel, 0L);
            }
        }
        return total;
    }

    /**
     * The nodes ({@code host:port}, replicas included) where somebody is subscribed to shard channel {@code channel}
     * ({@code PUBSUB SHARDCHANNELS} of each); empty where the server has no sharded pub/sub and outside a cluster.
     */
    public Set<String> shardSubscribedNodes(String channel) {
        Set<String> holding = new HashSet<>();
        if (cluster != null) {
            everyNode().forEach((address, node) -> {
                if (hasShardedPubSub(node) && node.pubsubShardChannels().contains(channel)) {
                    holding.add(address);
                }
            });
        }
        return holding;
    }

    /** Whether the server is a cluster with sharded pub/sub (Redis 7.0 and later, Valkey). */
    public boolean hasShardedPubSub() {
        return cluster != null && hasShardedPubSub(cluster.sync());
    }

    /** Closes every pub/sub connection of every client ({@code CLIENT KILL TYPE pubsub}, on every node). */
    public void killPubSubConnections() {
        for (RedisClusterCommands<String, String> node : everyNode().values()) {
            node.clientKill(KillArgs.Builder.typePubsub());
        }
    }

    /** The pub/sub connections ({@code CLIENT LIST TYPE pubsub}) of every node, as {@code node/id}. */
    public Set<String> pubSubConnectionIds() {
        Set<String> ids = new HashSet<>();
        everyNode().forEach((address, node) -> {
            for (String line : node.clientList(ClientListArgs.Builder.typePubsub()).split("\n")) {
                if (line.startsWith("id=")) {
                    ids.add(address + "/" + line.substring(3, line.indexOf(' ')));
                }
            }
        });
        return ids;
    }

    /** Commands of every reachable node, by address (the one server when not a cluster). */
    private Map<String, RedisClusterCommands<String, String>> everyNode() {
        Map<String, RedisClusterCommands<String, String>> nodes = new LinkedHashMap<>();
        if (cluster == null) {
            nodes.put("server", connection.sync());
            return nodes;
        }
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (node.isConnected() && !node.is(RedisClusterNode.NodeFlag.FAIL)
                    && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
                nodes.put(node.getUri().getHost() + ":" + node.getUri().getPort(),
                        cluster.getConnection(node.getNodeId()).sync());
            }
        }
        return nodes;
    }

    private List<RedisClusterCommands<String, String>> nodes() {
        return new ArrayList<>(everyNode().values());
    }

    /** The pub/sub channel of a plain (and fenced) lock: {@code redisson_lock__channel:{NAME}}. */
    public static String lockChannel(String name) {
        return "redisson_lock__channel:{" + name + "}";
    }

    /**
     * The waiters' list of a fair lock: {@code redisson_lock_queue:{NAME}}, or {@code redisson_lock_queue:NAME} when
     * the name has a hash tag of its own (docs/protocol.md §1.1).
     */
    public static String fairQueue(String name) {
        return name.indexOf('{') >= 0 ? "redisson_lock_queue:" + name : "redisson_lock_queue:{" + name + "}";
    }

    /**
     * Subscribes to {@code channel} on a connection of its own; close the result to unsubscribe (before a leak check
     * looks at PUBSUB CHANNELS). On a cluster it is a plain {@code SUBSCRIBE}, which hears {@code PUBLISH} from any
     * node.
     */
    public Subscription subscribe(String channel) {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        if (cluster != null) {
            StatefulRedisClusterPubSubConnection<String, String> pubsub = ((RedisClusterClient) client).connectPubSub();
            pubsub.addListener(new RedisClusterPubSubAdapter<>() {
                @Override
                public void message(RedisClusterNode node, String ch, String message) {
                    if (ch.equals(channel)) {
                        messages.add(message);
                    }
                }
            });
            pubsub.sync().subscribe(channel);
            return new Subscription(pubsub, messages);
        }
        StatefulRedisPubSubConnection<String, String> pubsub = ((RedisClient) client).connectPubSub();
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String message) {
                if (ch.equals(channel)) {
                    messages.add(message);
                }
            }
        });
        pubsub.sync().subscribe(channel);
        return new Subscription(pubsub, messages);
    }

    /** Messages received on one channel, in order. */
    public static final class Subscription implements AutoCloseable {
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final BlockingQueue<String> messages;

        private Subscription(StatefulRedisPubSubConnection<String, String> connection, BlockingQueue<String> messages) {
            this.connection = connection;
            this.messages = messages;
        }

        /** The messages received so far and not yet taken. */
        public BlockingQueue<String> messages() {
            return messages;
        }

        @Override
        public void close() {
            connection.close();
        }
    }

    @Override
    public void close() {
        try {
            if (cluster != null) {
                cluster.close();
            } else {
                connection.close();
            }
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
