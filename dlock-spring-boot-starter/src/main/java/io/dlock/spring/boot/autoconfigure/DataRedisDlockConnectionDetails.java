package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * {@link DlockConnectionDetails} from the application's Spring Data Redis connection: standalone (host, port,
 * database), Sentinel (master name, nodes, database) or Cluster (nodes), with its user name, password and SSL bundle.
 *
 * <p>Not supported, refused at start-up with a message saying so: a static master/replica set-up (locks need the one
 * master), and a Sentinel password different from the data nodes' (a dlock URI carries one set of credentials).
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

    @Override
    public String getRedisUri() {
        boolean tls = tlsByUrl || details.getSslBundle() != null;
        String s = tls ? "s" : "";
        if (details.getMasterReplica() != null) {
            throw new InvalidConfigurationPropertyValueException("spring.data.redis.masterreplica.nodes",
                    "(master/replica nodes)", "dlock does not support a static master/replica set-up: its locks "
                            + "need the one master (set dlock.redis-uri to it, or use Sentinel)");
        }
        if (details.getCluster() != null) {
            return "redis" + s + "-cluster://" + userInfo(details.getUsername(), details.getPassword())
                    + nodes(details.getCluster().getNodes(), "spring.data.redis.cluster.nodes");
        }
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            String sentinelPassword = sentinel.getPassword();
            if (sentinelPassword != null && !sentinelPassword.equals(details.getPassword())) {
                throw new InvalidConfigurationPropertyValueException("spring.data.redis.sentinel.password", "***",
                        "dlock uses one password for the Sentinels and the data nodes, and this one differs from "
                                + "spring.data.redis.password (set dlock.redis-uri instead)");
            }
            return "redis" + s + "-sentinel://" + userInfo(details.getUsername(), details.getPassword())
                    + nodes(sentinel.getNodes(), "spring.data.redis.sentinel.nodes") + "/" + sentinel.getDatabase()
                    + "?sentinelMasterId=" + encode(sentinel.getMaster());
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return "redis" + s + "://" + userInfo(details.getUsername(), details.getPassword())
                + host(standalone.getHost()) + ":" + standalone.getPort() + "/" + standalone.getDatabase();
    }

    @Override
    public SslBundle getSslBundle() {
        return details.getSslBundle();
    }

    @Override
    public String getOrigin() {
        return ORIGIN;
    }

    private static String nodes(List<Node> nodes, String property) {
        if (nodes == null || nodes.isEmpty()) {
            throw new InvalidConfigurationPropertyValueException(property, "", "no nodes given");
        }
        return nodes.stream().map(n -> host(n.host()) + ":" + n.port()).collect(Collectors.joining(","));
    }

    private static String host(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /**
     * @return {@code user:password@}, {@code :password@} or nothing (no password: a user name alone authenticates
     *         nobody, and the URI form would read it as a password), each part percent-encoded
     */
    static String userInfo(String username, String password) {
        if (password == null || password.isEmpty()) {
            return "";
        }
        return (username == null || username.isEmpty() ? "" : encode(username)) + ":" + encode(password) + "@";
    }

    /** Percent-encodes every byte of the UTF-8 form except RFC 3986's unreserved characters. */
    static String encode(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
