package io.dlock.internal.transport;

import io.dlock.RedisConnection;
import io.dlock.Redaction;
import io.lettuce.core.RedisURI;

import java.util.ArrayList;
import java.util.List;

/**
 * Maps a {@link RedisConnection} onto the Lettuce URIs of an {@link Endpoint}, built the way Lettuce's parser builds
 * them from the URI of the same deployment (see {@link RedisUriParser}): the data nodes' credentials and database on
 * the node (or on every cluster seed), TLS on every node and Sentinel. The one thing a URI cannot say, credentials
 * for the Sentinels, goes onto each Sentinel's URI.
 */
final class ConnectionMapper {
    private ConnectionMapper() {
    }

    static Endpoint endpoint(RedisConnection connection) {
        List<RedisURI> uris = switch (connection.kind()) {
            case STANDALONE -> List.of(standalone(connection));
            case SENTINEL -> List.of(sentinel(connection));
            case CLUSTER -> connection.nodes().stream().map(seed -> node(seed, connection).build()).toList();
        };
        List<char[]> secrets = new ArrayList<>();
        secrets.add(connection.password());
        secrets.add(connection.sentinelPassword());
        return new Endpoint(connection.kind() == RedisConnection.Kind.CLUSTER ? Endpoint.Kind.CLUSTER
                : Endpoint.Kind.NODE, uris, connection.toString(), text -> hide(text, secrets));
    }

    private static RedisURI standalone(RedisConnection connection) {
        return node(connection.nodes().get(0), connection).withDatabase(connection.database()).build();
    }

    private static RedisURI sentinel(RedisConnection connection) {
        RedisURI.Builder master = RedisURI.builder();
        char[] sentinelPassword = connection.sentinelPassword();
        for (RedisConnection.Node node : connection.nodes()) {
            RedisURI.Builder sentinel = RedisURI.builder().withHost(node.host()).withPort(node.port());
            authenticate(sentinel, connection.sentinelUsername().orElse(null), sentinelPassword);
            master.withSentinel(sentinel.build());
        }
        // set after the Sentinels, so that TLS applies to them too (as Lettuce's parser does)
        master.withSentinelMasterId(connection.masterName().orElseThrow()).withSsl(connection.tls())
                .withDatabase(connection.database());
        authenticate(master, connection.username().orElse(null), connection.password());
        return master.build();
    }

    /** A data node: host, port, TLS and the data nodes' credentials. */
    private static RedisURI.Builder node(RedisConnection.Node node, RedisConnection connection) {
        RedisURI.Builder b = RedisURI.builder().withHost(node.host()).withPort(node.port()).withSsl(connection.tls());
        authenticate(b, connection.username().orElse(null), connection.password());
        return b;
    }

    private static void authenticate(RedisURI.Builder b, String username, char[] password) {
        if (password == null) {
            return;
        }
        if (username == null) {
            b.withPassword(password);
        } else {
            b.withAuthentication(username, password);
        }
    }

    /** @return {@code text} with every non-empty one of {@code secrets} replaced by {@link Redaction#MASK} */
    private static String hide(String text, List<char[]> secrets) {
        String result = text;
        for (char[] secret : secrets) {
            if (result != null && secret != null && secret.length > 0) {
                result = result.replace(new String(secret), Redaction.MASK);
            }
        }
        return result;
    }
}
