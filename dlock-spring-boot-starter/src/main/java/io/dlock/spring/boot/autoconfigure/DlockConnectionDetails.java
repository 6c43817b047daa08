package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the auto-configured {@code LockClient} connects. The auto-configuration provides one from
 * {@code dlock.redis-uri} or, when that is unset, from the application's Spring Data Redis connection
 * ({@code spring.data.redis.*} or a service connection); define a bean of this type to decide yourself.
 */
public interface DlockConnectionDetails extends ConnectionDetails {

    /**
     * @return a dlock Redis URI ({@code redis://}, {@code rediss://}, {@code redis-sentinel://},
     *         {@code redis-cluster://}…), credentials included and percent-encoded; never logged or shown as is
     */
    String getRedisUri();

    /** @return the trust material and key for TLS, or null for the URI's defaults (the JVM's trust store) */
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
