package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import io.dlock.RedisConnection;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;

import java.util.List;
import java.util.Objects;

/**
 * {@link DlockConnectionDetails} from the application's Spring Data Redis connection, mapped value by value onto a
 * {@link RedisConnection}: standalone (host, port, database), Sentinel (master name, nodes, database, the Sentinels'
 * own user name and password) or Cluster (nodes), with the user name, password and SSL bundle.
 *
 * <p>Not supported, refused at start-up with a message saying so: a static master/replica set-up (locks need the one
 * master). A value {@link RedisConnection} refuses is reported as the {@code spring.data.redis.*} property it came
 * from.
 */
final class DataRedisDlockConnectionDetails implements DlockConnectionDetails {
    static final String ORIGIN = "spring.data.redis.*";

    private final DataRedisConnectionDetails details;
    private final boolean tlsByUrl;

    /**
     * @param tlsByUrl whether {@code spring.data.redis.url} is a {@code rediss://} URL (TLS without an SSL bundle:
     *                 the JVM's trust store)
     */
    DataRedisDlockConnectionDetails(DataRedisConnectionDetails details, boolean tlsByUrl) {
        this.details = Objects.requireNonNull(details, "details");
        this.tlsByUrl = tlsByUrl;
    }

    /** @throws InvalidConfigurationPropertyValueException naming the property of a value that cannot be used */
    @Override
    public RedisConnection getConnection() {
        if (details.getMasterReplica() != null) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.masterreplica.nodes",
                    "(master/replica nodes)", "dlock does not support a static master/replica set-up: its locks "
                            + "need the one master (set dlock.redis-uri to it, or use Sentinel)");
        }
        RedisConnection.Builder b;
        try {
            if (details.getCluster() != null) {
                b = RedisConnection.cluster(nodes(details.getCluster().getNodes(), "spring.data.redis.cluster.nodes"));
            } else if (details.getSentinel() != null) {
                DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
                b = RedisConnection.sentinel(sentinel.getMaster(),
                        nodes(sentinel.getNodes(), "spring.data.redis.sentinel.nodes"))
                        .database(sentinel.getDatabase());
                if (hasText(sentinel.getPassword())) {
                    b.sentinelCredentials(textOrNull(sentinel.getUsername()), sentinel.getPassword().toCharArray());
                }
            } else {
                DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
                b = RedisConnection.standalone(standalone.getHost(), standalone.getPort())
                        .database(standalone.getDatabase());
            }
        } catch (InvalidSettingException e) {
            throw new InvalidConfigurationPropertyValueException(property(e.setting()), "(see the reason)",
                    e.getMessage());
        }
        // no password: no authentication (a user name alone authenticates nobody)
        if (hasText(details.getPassword())) {
            b.credentials(textOrNull(details.getUsername()), details.getPassword().toCharArray());
        }
        return b.tls(tlsByUrl || details.getSslBundle() != null).build();
    }

    @Override
    public SslBundle getSslBundle() {
        return details.getSslBundle();
    }

    @Override
    public String getOrigin() {
        return ORIGIN;
    }

    private static List<RedisConnection.Node> nodes(List<Node> nodes, String property) {
        if (nodes == null || nodes.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(property, "", "no nodes given");
        }
        try {
            return nodes.stream().map(n -> new RedisConnection.Node(n.host(), n.port())).toList();
        } catch (InvalidSettingException e) {
            throw new InvalidConfigurationPropertyValueException(property, "(see the reason)", e.getMessage());
        }
    }

    /** The Spring Data Redis property a refused {@link RedisConnection} setting came from. */
    private static String property(String setting) {
        return switch (setting) {
            case "connection.host" -> "spring.data.redis.host";
            case "connection.port" -> "spring.data.redis.port";
            case "connection.masterName" -> "spring.data.redis.sentinel.master";
            default -> "spring.data.redis.database";
        };
    }

    private static boolean hasText(String s) {
        return s != null && !s.isEmpty();
    }

    private static String textOrNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
