package io.dlock.redisprocess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Settings of a {@link RedisServer} to start ({@link RedisServer#builder()}). Not thread-safe; may be reused to start
 * several servers.
 *
 * <pre>{@code
 * RedisServer redis = RedisServer.builder()
 *         .port(0)                         // 0 = a free port (default)
 *         .config("maxmemory", "10mb")     // extra --key value arguments
 *         .startupTimeout(Duration.ofSeconds(10))
 *         .start();
 * }</pre>
 */
public final class RedisServerBuilder {
    private Path binary;
    private int port;
    private final List<String> extraArgs = new ArrayList<>();
    private Duration startupTimeout = RedisServer.DEFAULT_STARTUP_TIMEOUT;
    private String sentinelConfig;
    private RedisServer.ClientAuth tlsClientAuth;
    private List<String> tlsServerNames = List.of();
    private TlsCertificates tlsCertificates;

    RedisServerBuilder() {
    }

    /**
     * Runs the server as a Sentinel ({@code redis-server <file> --sentinel}) whose configuration file starts with
     * {@code config}. Used by {@link SentinelTopology}.
     */
    RedisServerBuilder sentinel(String config) {
        this.sentinelConfig = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * @param port the TCP port, or 0 (the default) for a free one chosen at start
     * @throws IllegalArgumentException when outside 0..65535
     */
    public RedisServerBuilder port(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * Adds {@code --key value} to the command line, after the server's own options (so it overrides e.g.
     * {@code save} or {@code appendonly}). The value is passed as one argument.
     *
     * @param key a {@code redis.conf} directive, with or without leading {@code --}
     * @throws IllegalArgumentException for a blank key, or one {@link RedisServer} sets itself ({@code bind},
     *         {@code port}, {@code dir}, {@code logfile}, {@code daemonize})
     */
    public RedisServerBuilder config(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        extraArgs.add("--" + ServerCommandLine.directive(key));
        extraArgs.add(value);
        return this;
    }

    /**
     * Renames a command ({@code --rename-command COMMAND NEW_NAME}), as hardened and managed servers do; an empty
     * {@code newName} disables it. With {@code INFO} disabled, readiness is checked with {@code CONFIG GET dir}
     * instead (the server's private directory identifies it) and {@link RedisServer#version()} is null.
     *
     * @throws IllegalArgumentException for a blank command
     */
    public RedisServerBuilder renameCommand(String command, String newName) {
        Objects.requireNonNull(newName, "newName");
        if (command == null || command.isBlank()) {
            throw new IllegalArgumentException("blank command");
        }
        extraArgs.addAll(List.of("--rename-command", command.strip(), newName));
        return this;
    }

    /**
     * Runs this executable instead of the one {@link RedisBinary#resolve()} picks.
     *
     * @throws IllegalArgumentException when it is not an executable file
     */
    public RedisServerBuilder binary(Path binary) {
        Objects.requireNonNull(binary, "binary");
        if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
            throw new IllegalArgumentException("not an executable file: " + binary);
        }
        this.binary = binary.toAbsolutePath();
        return this;
    }

    /**
     * Serves TLS only: a new CA, server and client certificate are generated in the server's private directory
     * ({@link RedisServer#tlsCertificates()}), and the server runs with {@code --port 0 --tls-port P
     * --tls-cert-file … --tls-key-file … --tls-ca-cert-file … --tls-auth-clients no|optional|yes}. The server's
     * own commands (readiness, {@code PING}, {@code FLUSHALL}) go over TLS, trusting the CA and presenting the
     * client certificate. Needs a {@code redis-server} built with TLS (Redis 6+, {@code BUILD_TLS=yes}), else
     * start fails, and BouncyCastle ({@value TlsCertificates#BOUNCY_CASTLE}) on the class path to make the
     * certificates, else {@link #start()} fails saying so.
     */
    public RedisServerBuilder tls(RedisServer.ClientAuth clientAuth) {
        this.tlsClientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
        return this;
    }

    /**
     * Serves TLS only, as {@link #tls(RedisServer.ClientAuth)}, with these certificates instead of new ones: what the
     * servers of one deployment share (Sentinel, Cluster), so that they trust each other and a client trusts them
     * all with one CA.
     */
    public RedisServerBuilder tls(RedisServer.ClientAuth clientAuth, TlsCertificates certificates) {
        tls(clientAuth);
        this.tlsCertificates = Objects.requireNonNull(certificates, "certificates");
        return this;
    }

    /**
     * With {@link #tls}: the server certificate names only these DNS names (its subject is the first), no IP
     * address, so a client connecting to {@code 127.0.0.1} finds its host name missing from the certificate, as
     * with nodes that Sentinel or Cluster hand out by IP. A client that checks host names connects with one of
     * these names resolving to loopback (e.g. {@code localhost}). By default the certificate names {@code 127.0.0.1}
     * and {@code localhost}.
     *
     * @throws IllegalArgumentException when no name is given, or one is blank
     */
    public RedisServerBuilder tlsServerNames(String... dnsNames) {
        if (dnsNames.length == 0) {
            throw new IllegalArgumentException("no DNS name");
        }
        for (String name : dnsNames) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("blank DNS name");
            }
        }
        this.tlsServerNames = List.of(dnsNames);
        return this;
    }

    /** How long {@link #start()} and {@link RedisServer#restart()} wait for an answer; default 10 s. */
    public RedisServerBuilder startupTimeout(Duration startupTimeout) {
        Objects.requireNonNull(startupTimeout, "startupTimeout");
        if (startupTimeout.isNegative() || startupTimeout.isZero()) {
            throw new IllegalArgumentException("startupTimeout must be positive: " + startupTimeout);
        }
        this.startupTimeout = startupTimeout;
        return this;
    }

    /**
     * Starts the server; blocks until it answers on its port (at most the startup timeout). With port 0, a
     * port taken by another process in the meantime is replaced by another free one (up to 5 tries).
     *
     * @throws IllegalStateException when no binary is found, TLS is asked for without BouncyCastle on the class
     *         path, or the server does not come up (the message holds the tail of the server's log). Nothing is
     *         left running then.
     */
    public RedisServer start() {
        if (tlsClientAuth != null) {
            TlsCertificates.requireBouncyCastle();
        }
        Path resolved = binary != null ? binary : RedisBinary.resolve();
        List<String> names = tlsServerNames;
        TlsCertificates shared = tlsCertificates;
        return new RedisServer(resolved, port, extraArgs, startupTimeout, sentinelConfig, tlsClientAuth,
                shared != null ? dir -> shared : dir -> TlsCertificates.generate(dir, names))
                .startFirst();
    }
}
