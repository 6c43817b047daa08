package io.dlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Immutable description of where Redis is, as values rather than a URI: one server, the master that Redis Sentinel
 * names, or a Redis Cluster; with the credentials, database and whether to use TLS. Set with
 * {@link LockClientConfig.Builder#connection}, instead of a {@link LockClientConfig.Builder#redisUri Redis URI}; a
 * client connects and behaves exactly as with the URI of the same deployment.
 *
 * <pre>{@code
 * RedisConnection.standalone("redis.internal", 6379).credentials("app", password).database(2).build();
 * RedisConnection.sentinel("mymaster", List.of(new Node("s1", 26379), new Node("s2", 26379)))
 *         .credentials(null, password).sentinelCredentials(null, sentinelPassword).tls(true).build();
 * RedisConnection.cluster(List.of(new Node("c1", 7000), new Node("c2", 7000))).build();
 * }</pre>
 *
 * <p>Refused values throw {@link InvalidSettingException} whose {@link InvalidSettingException#setting() setting} is
 * {@code connection.} and what was refused, e.g. {@code connection.port}. Passwords are copied in and out and never
 * shown by {@link #toString()}, nor are user names.
 */
public final class RedisConnection {

    /** What kind of deployment a connection reaches. */
    public enum Kind {
        /** One Redis server. */
        STANDALONE,
        /** The master that a set of Redis Sentinels names, followed through failovers. */
        SENTINEL,
        /** A Redis Cluster; the nodes given are seeds from which the rest of the topology is discovered. */
        CLUSTER
    }

    /**
     * A server's address.
     *
     * @param host a host name or IP address (not blank)
     * @param port 1 to 65535
     */
    public record Node(String host, int port) {
        /** @throws InvalidSettingException ({@code connection.host} or {@code connection.port}) when out of range */
        public Node {
            SettingChecks.notBlank(host, "connection.host");
            if (port < 1 || port > 65535) {
                throw new InvalidSettingException("connection.port", "connection.port must be between 1 and 65535: "
                        + port + " (of host " + host + ")");
            }
        }

        /** @return {@code host:port}, an IPv6 address in brackets */
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    private final Kind kind;
    private final List<Node> nodes;
    private final String masterName;
    private final String username;
    private final char[] password;
    private final String sentinelUsername;
    private final char[] sentinelPassword;
    private final int database;
    private final boolean tls;

    private RedisConnection(Builder b) {
        this.kind = b.kind;
        this.nodes = b.nodes;
        this.masterName = b.masterName;
        this.username = b.username;
        this.password = SettingChecks.copy(b.password);
        this.sentinelUsername = b.sentinelUsername;
        this.sentinelPassword = SettingChecks.copy(b.sentinelPassword);
        this.database = b.database;
        this.tls = b.tls;
    }

    /**
     * @return a builder of a connection to one server
     * @throws InvalidSettingException ({@code connection.host}, {@code connection.port}) when out of range
     */
    public static Builder standalone(String host, int port) {
        return new Builder(Kind.STANDALONE, List.of(new Node(host, port)), null);
    }

    /**
     * @param masterName the name the Sentinels monitor the master under
     * @param sentinels  the Sentinels asked for the master, in this order
     * @return a builder of a connection to the master that these Sentinels name
     * @throws InvalidSettingException ({@code connection.masterName}, {@code connection.nodes}) when the name is
     *                                  blank or no Sentinel is given
     */
    public static Builder sentinel(String masterName, List<Node> sentinels) {
        return new Builder(Kind.SENTINEL, sentinels, SettingChecks.notBlank(masterName, "connection.masterName"));
    }

    /**
     * @param seeds nodes of the cluster; the client learns the others from them
     * @return a builder of a connection to a Redis Cluster
     * @throws InvalidSettingException ({@code connection.nodes}) when no node is given
     */
    public static Builder cluster(List<Node> seeds) {
        return new Builder(Kind.CLUSTER, seeds, null);
    }

    /** @return a builder starting from this connection */
    public Builder toBuilder() {
        Builder b = new Builder(kind, nodes, masterName);
        b.username = username;
        b.password = SettingChecks.copy(password);
        b.sentinelUsername = sentinelUsername;
        b.sentinelPassword = SettingChecks.copy(sentinelPassword);
        b.database = database;
        b.tls = tls;
        return b;
    }

    /** @return the kind of deployment */
    public Kind kind() {
        return kind;
    }

    /** @return the server (standalone), the Sentinels (Sentinel) or the seeds (Cluster); not empty, unmodifiable */
    public List<Node> nodes() {
        return nodes;
    }

    /** @return the master's name under the Sentinels; present exactly for {@link Kind#SENTINEL} */
    public Optional<String> masterName() {
        return Optional.ofNullable(masterName);
    }

    /** @return the Redis user name, if one was given (else the default user, when a password was given) */
    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /** @return a copy of the data nodes' password, or null when the client does not authenticate */
    public char[] password() {
        return SettingChecks.copy(password);
    }

    /** @return the user name for the Sentinels, if one was given */
    public Optional<String> sentinelUsername() {
        return Optional.ofNullable(sentinelUsername);
    }

    /** @return a copy of the Sentinels' password, or null when the client does not authenticate to them */
    public char[] sentinelPassword() {
        return SettingChecks.copy(sentinelPassword);
    }

    /** @return the database number (0 unless set; always 0 on a Cluster) */
    public int database() {
        return database;
    }

    /** @return whether every connection (data nodes and Sentinels) uses TLS */
    public boolean tls() {
        return tls;
    }

    /**
     * @return e.g. {@code master mymaster of Sentinels 10.0.0.1:26379,10.0.0.2:26379 (database 2, TLS,
     *         credentials ***)}: where the client connects, with neither user names nor passwords
     */
    @Override
    public String toString() {
        String where = switch (kind) {
            case STANDALONE -> "standalone " + nodes.get(0);
            case SENTINEL -> "master " + masterName + " of Sentinels " + joined(nodes);
            case CLUSTER -> "cluster seeds " + joined(nodes);
        };
        List<String> options = new ArrayList<>();
        if (database != 0) {
            options.add("database " + database);
        }
        if (tls) {
            options.add("TLS");
        }
        if (password != null) {
            options.add("credentials ***");
        }
        if (sentinelPassword != null) {
            options.add("Sentinel credentials ***");
        }
        return options.isEmpty() ? where : where + " (" + String.join(", ", options) + ")";
    }

    private static String joined(List<Node> nodes) {
        return nodes.stream().map(Node::toString).collect(Collectors.joining(","));
    }

    /** Mutable builder of a {@link RedisConnection}; not thread-safe. Every setter validates its argument at once. */
    public static final class Builder {
        private final Kind kind;
        private final List<Node> nodes;
        private final String masterName;
        private String username;
        private char[] password;
        private String sentinelUsername;
        private char[] sentinelPassword;
        private int database;
        private boolean tls;

        private Builder(Kind kind, List<Node> nodes, String masterName) {
            Objects.requireNonNull(nodes, "connection.nodes");
            if (nodes.isEmpty()) {
                throw new InvalidSettingException("connection.nodes", "connection.nodes is empty: a "
                        + kind.name().toLowerCase(java.util.Locale.ROOT) + " connection needs at least one node");
            }
            nodes.forEach(node -> Objects.requireNonNull(node, "connection.nodes"));
            this.kind = kind;
            this.nodes = List.copyOf(nodes);
            this.masterName = masterName;
        }

        /**
         * Authenticate to the data nodes (to every node of a Cluster) as this Redis user; default: no
         * authentication.
         *
         * @param username a Redis 6 ACL user, or null for the default user ({@code requirepass})
         * @param password the password; copied (clear your array after the call if you wish); never shown
         * @throws InvalidSettingException ({@code connection.username}) when {@code username} is blank
         */
        public Builder credentials(String username, char[] password) {
            this.username = username == null ? null : SettingChecks.notBlank(username, "connection.username");
            this.password = SettingChecks.copy(Objects.requireNonNull(password, "connection.password"));
            return this;
        }

        /**
         * Authenticate to the Sentinels as this user (Sentinel's own {@code requirepass} or ACL); default: the
         * Sentinels are asked without authentication, as with a {@code redis-sentinel://} URI, whose credentials
         * are the data nodes'.
         *
         * @param username a user of the Sentinels, or null for their default user
         * @param password the password; copied; never shown
         * @throws InvalidSettingException ({@code connection.sentinelCredentials}) when this is no Sentinel
         *                                  connection, or {@code connection.username} when {@code username} is blank
         */
        public Builder sentinelCredentials(String username, char[] password) {
            if (kind != Kind.SENTINEL) {
                throw new InvalidSettingException("connection.sentinelCredentials",
                        "connection.sentinelCredentials: only a Sentinel connection has Sentinels to authenticate to");
            }
            this.sentinelUsername = username == null ? null : SettingChecks.notBlank(username, "connection.username");
            this.sentinelPassword = SettingChecks.copy(Objects.requireNonNull(password, "connection.sentinelPassword"));
            return this;
        }

        /**
         * The database number the client selects; default 0.
         *
         * @throws InvalidSettingException ({@code connection.database}) when negative, or not 0 on a Cluster
         */
        public Builder database(int database) {
            SettingChecks.notNegative(database, "connection.database");
            if (kind == Kind.CLUSTER && database != 0) {
                throw new InvalidSettingException("connection.database",
                        "connection.database must be 0 on a Redis Cluster: " + database);
            }
            this.database = database;
            return this;
        }

        /**
         * Whether to connect with TLS, to the data nodes and (Sentinel) to the Sentinels alike; default false. The
         * certificates are checked as {@link TlsSettings} say.
         */
        public Builder tls(boolean tls) {
            this.tls = tls;
            return this;
        }

        /** @return the connection (each value was checked when set) */
        public RedisConnection build() {
            return new RedisConnection(this);
        }
    }
}
