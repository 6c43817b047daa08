package io.dlock.it.support;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A plain Lettuce connection for looking at (and tampering with) what the library wrote, independent of it.
 * Reconnects by itself after a server restart.
 */
public final class RawRedis implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private RawRedis(String uri) {
        RedisURI redisUri = RedisURI.create(uri);
        redisUri.setTimeout(Duration.ofSeconds(5));
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
    }

    public static RawRedis connect(String uri) {
        return new RawRedis(uri);
    }

    public RedisCommands<String, String> sync() {
        return connection.sync();
    }

    /** The owner field of a hold: {@code <clientId>:<ownerId>}. */
    public static String field(String clientId, long ownerId) {
        return clientId + ":" + ownerId;
    }

    public Map<String, String> hgetall(String key) {
        return sync().hgetall(key);
    }

    public long pttl(String key) {
        return sync().pttl(key);
    }

    public boolean exists(String key) {
        return sync().exists(key) > 0;
    }

    public long dbsize() {
        return sync().dbsize();
    }

    public List<String> keys() {
        return sync().keys("*");
    }

    /** PUBSUB CHANNELS: the channels anybody is subscribed to. */
    public List<String> channels() {
        return sync().pubsubChannels();
    }

    /** PUBSUB NUMSUB for one channel. */
    public long subscribers(String channel) {
        Long n = sync().pubsubNumsub(channel).get(channel);
        return n == null ? 0 : n;
    }

    /** The pub/sub channel of a plain (and fenced) lock: {@code redisson_lock__channel:{NAME}}. */
    public static String lockChannel(String name) {
        return "redisson_lock__channel:{" + name + "}";
    }

    /**
     * Subscribes to {@code channel} on a connection of its own; close the result to unsubscribe (before a leak check
     * looks at PUBSUB CHANNELS).
     */
    public Subscription subscribe(String channel) {
        StatefulRedisPubSubConnection<String, String> pubsub = client.connectPubSub();
        Subscription subscription = new Subscription(pubsub);
        pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String message) {
                if (ch.equals(channel)) {
                    subscription.messages.add(message);
                }
            }
        });
        pubsub.sync().subscribe(channel);
        return subscription;
    }

    /** Messages received on one channel, in order. */
    public static final class Subscription implements AutoCloseable {
        private final StatefulRedisPubSubConnection<String, String> connection;
        private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();

        private Subscription(StatefulRedisPubSubConnection<String, String> connection) {
            this.connection = connection;
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
            connection.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
