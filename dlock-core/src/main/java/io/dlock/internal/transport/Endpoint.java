package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.dlock.RedisConnection;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * Where a client connects, as the Lettuce URIs that its {@link RedisTransport} opens, whichever way it was given: a
 * Redis URI ({@link RedisUriParser}) or a {@link RedisConnection} ({@link ConnectionMapper}). Both give the same URIs
 * for the same deployment, so nothing after this point knows which it was.
 *
 * <p>Invariants: a {@link Kind#NODE} endpoint has one URI (carrying its Sentinels for Sentinel), a
 * {@link Kind#CLUSTER} one at least one seed; once {@link #of} returns, every URI and Sentinel has the command timeout
 * and, when it is TLS, the peer verification of the TLS settings; {@link #description()} holds no credentials.
 */
public final class Endpoint {

    /** Which transport serves the endpoint. */
    enum Kind {
        /** One master at a time, standalone or named by Sentinels: {@link NodeTransport}. */
        NODE,
        /** A Redis Cluster: {@link ClusterTransport}. */
        CLUSTER
    }

    private final Kind kind;
    private final List<RedisURI> uris;
    private final String description;
    private final UnaryOperator<String> scrubber;

    /**
     * @param description where it is, without credentials
     * @param scrubber    removes the credentials of this endpoint from a text (a driver's message)
     */
    Endpoint(Kind kind, List<RedisURI> uris, String description, UnaryOperator<String> scrubber) {
        this.kind = kind;
        this.uris = List.copyOf(uris);
        this.description = description;
        this.scrubber = scrubber;
    }

    /**
     * @return the endpoint of {@code config}'s URI or connection, with its timeouts and TLS verification set
     * @throws IllegalArgumentException when the URI is none of the accepted forms, or TLS settings are set but the
     *                                  connection is not TLS (a careful operator who gave certificates expects TLS,
     *                                  never a silent plain-text connection)
     */
    public static Endpoint of(LockClientConfig config) {
        Endpoint endpoint = config.connection().map(ConnectionMapper::endpoint)
                .orElseGet(() -> RedisUriParser.endpoint(config.redisUri().orElseThrow()));
        if (!endpoint.isTls() && !config.tls().isDefault()) {
            throw new IllegalArgumentException("TLS settings are set (" + config.tls() + ") but the connection is "
                    + "not TLS (a rediss://, rediss-sentinel:// or rediss-cluster:// URI, or a RedisConnection with "
                    + "tls(true)): " + endpoint.description());
        }
        Duration timeout = config.commandTimeout();
        endpoint.allUris().forEach(uri -> {
            uri.setTimeout(timeout);
            Tls.verifyPeer(uri, config.tls());
        });
        return endpoint;
    }

    /** @return where it is, for messages: the URI without user info, or the connection's description */
    public String description() {
        return description;
    }

    /** @return {@code text} without this endpoint's credentials, in any form they were given */
    public String scrub(String text) {
        return scrubber.apply(text);
    }

    boolean isCluster() {
        return kind == Kind.CLUSTER;
    }

    /** @return the one URI of a {@link Kind#NODE} endpoint, Sentinels included */
    RedisURI node() {
        return uris.get(0);
    }

    /** @return the seeds of a {@link Kind#CLUSTER} endpoint */
    List<RedisURI> seeds() {
        return uris;
    }

    /** @return whether any node or Sentinel is reached over TLS */
    public boolean isTls() {
        return allUris().anyMatch(RedisURI::isSsl);
    }

    /** @return every URI: the node and its Sentinels, or the seeds */
    Stream<RedisURI> allUris() {
        return uris.stream().flatMap(uri -> Stream.concat(Stream.of(uri), uri.getSentinels().stream()));
    }
}
