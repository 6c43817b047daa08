package io.dlock.spring.boot.autoconfigure;

import io.dlock.RedisConnection;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the auto-configured {@code LockClient} connects. The auto-configuration provides one from
 * {@code dlock.redis-uri} or, when that is unset, from the application's Spring Data Redis connection
 * ({@code spring.data.redis.*} or a service connection); define a bean of this type to decide yourself.
 *
 * <p>An implementation gives where Redis is one way: a structured {@link #getConnection() connection} or a
 * {@link #getRedisUri() Redis URI}; exactly one of them is not null.
 */
public interface DlockConnectionDetails extends ConnectionDetails {

    /**
     * @return where Redis is as values (host and port, Sentinels or cluster nodes, credentials, database, TLS), or
     *         null when {@link #getRedisUri()} gives it
     */
    default RedisConnection getConnection() {
        return null;
    }

    /**
     * @return a dlock Redis URI ({@code redis://}, {@code rediss://}, {@code redis-sentinel://},
     *         {@code redis-cluster://}…), credentials included and percent-encoded, never logged or shown as is; or
     *         null when {@link #getConnection()} gives where Redis is
     */
    default String getRedisUri() {
        return null;
    }

    /** @return the trust material and key for TLS, or null for the defaults (the JVM's trust store) */
    default SslBundle getSslBundle() {
        return null;
    }

    /**
     * @return what the settings came from, as a property name or pattern (e.g. {@code dlock.redis-uri} or
     *         {@code spring.data.redis.*}), named in start-up failures
     */
    default String getOrigin() {
        return "dlock.redis-uri";
    }
}
