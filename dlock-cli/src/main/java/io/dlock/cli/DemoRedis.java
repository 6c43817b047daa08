package io.dlock.cli;

import io.dlock.LockClient;
import io.dlock.LockException;
import io.dlock.redisprocess.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

/**
 * The Redis that {@code dlock demo} runs against: a {@code redis-server} of its own on a free loopback port, or the
 * one given with {@code --redis}. The demo's keys are under a random prefix, {@code dlock-demo:<8 hex digits>:}, so
 * demos never meet each other's locks. {@link #close()} (idempotent; also run by the shutdown hook) stops what
 * {@link #start} started.
 */
final class DemoRedis implements AutoCloseable {
    private final String prefix = "dlock-demo:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private volatile RedisServer server;
    private volatile RedisClient raw;
    private volatile String uri;

    /**
     * Starts a redis-server (after killing those that demos whose JVM was killed left behind), or checks that the
     * given Redis answers.
     *
     * @param externalUri  the {@code --redis} to use, or null to start a Redis
     * @param serverBinary the server to start, or null for {@link RedisServer#start()}'s choice
     * @return what the demo runs against, a line for the report
     */
    String start(String externalUri, Path serverBinary) {
        String description;
        if (externalUri == null) {
            RedisServer started;
            try {
                // servers that earlier demos left behind when their JVM was killed (kill -9): the same clean-up as
                // the test kit's; it never touches servers of running JVMs
                RedisServer.reapOrphans();
                started = serverBinary == null ? RedisServer.start()
                        : RedisServer.builder().binary(serverBinary).start();
                server = started;
            } catch (RuntimeException e) {
                throw new CliException(ExitCodes.UNAVAILABLE, "cannot start a redis-server for the demo: "
                        + e.getMessage() + " (install redis-server, set $REDIS_SERVER, or pass --redis URI)", e);
            }
            uri = started.uri();
            description = "dlock demo: started " + started.product() + " at " + uri
                    + " (stopped when the demo ends)";
        } else {
            uri = externalUri;
            try {
                LockClient.connect(uri).close(); // fail early, with the usual message, when Redis is not there
                description = "dlock demo: using Redis at " + RedisUris.redact(uri) + ", keys " + prefix + "*";
            } catch (LockException e) {
                throw new CliException(ExitCodes.of(e), e.getMessage(), e);
            }
        }
        raw = RedisClient.create(uri);
        return description;
    }

    String uri() {
        return uri;
    }

    /** The demo's key (or lock name) for {@code name}. */
    String key(String name) {
        return prefix + name;
    }

    /** A plain Lettuce connection, for keys that are not locks. */
    StatefulRedisConnection<String, String> connect() {
        return raw.connect();
    }

    @Override
    public synchronized void close() {
        RedisClient r = raw;
        raw = null;
        if (r != null) {
            r.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
        RedisServer s = server;
        server = null;
        if (s != null) {
            s.close();
        }
    }
}
