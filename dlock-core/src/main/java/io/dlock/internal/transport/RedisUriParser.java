package io.dlock.internal.transport;

import io.dlock.Redaction;
import io.lettuce.core.RedisURI;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses a dlock Redis URI into an {@link Endpoint}: Lettuce's forms for one node ({@code redis://},
 * {@code rediss://}, {@code redis-sentinel://…?sentinelMasterId=…}), and dlock's own Cluster form
 * ({@code redis-cluster://h:p[,h:p…]}, {@code rediss-cluster://} for TLS), which Lettuce has no URI for.
 *
 * <p>Invariant: no exception thrown here carries the URI's credentials, nor a cause that could (Lettuce's parser
 * quotes the URI it refuses).
 */
final class RedisUriParser {
    /** Scheme of the Cluster form of a Redis URI. */
    static final String CLUSTER_SCHEME = "redis-cluster";
    /** The Cluster form over TLS. */
    static final String CLUSTER_TLS_SCHEME = "rediss-cluster";

    private RedisUriParser() {
    }

    /** @throws IllegalArgumentException when {@code uri} is none of the accepted forms */
    static Endpoint endpoint(String uri) {
        String scheme = uri.contains("://") ? uri.substring(0, uri.indexOf("://")) : "";
        boolean cluster = scheme.equalsIgnoreCase(CLUSTER_SCHEME) || scheme.equalsIgnoreCase(CLUSTER_TLS_SCHEME);
        return new Endpoint(cluster ? Endpoint.Kind.CLUSTER : Endpoint.Kind.NODE,
                cluster ? seeds(uri) : List.of(node(uri)), Redaction.uri(uri), text -> Redaction.scrub(text, uri));
    }

    /** The standalone or Sentinel form, parsed by Lettuce. */
    private static RedisURI node(String uri) {
        try {
            return RedisURI.create(uri);
        } catch (RuntimeException e) {
            // no cause: the parser's exceptions quote the URI, credentials included
            throw new IllegalArgumentException("redisUri is not a valid Redis URI: " + Redaction.uri(uri)
                    + " (" + Redaction.scrub(String.valueOf(e.getMessage()), uri) + ")");
        }
    }

    /**
     * The seed nodes of {@code redis-cluster://[user:password@]h1:p1,h2:p2[/…][?…]}: each becomes
     * {@code redis://[user:password@]hN:pN[/…][?…]} ({@code rediss://} for {@code rediss-cluster}).
     */
    static List<RedisURI> seeds(String uri) {
        int schemeEnd = uri.indexOf("://");
        String scheme = uri.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
        String rest = uri.substring(schemeEnd + 3);
        // the user info ends at the last '@' (a password may hold '/', '?', '#' or '@'), the hosts at the next of these
        int at = rest.lastIndexOf('@');
        int authorityEnd = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(c, at + 1);
            if (i >= 0 && i < authorityEnd) {
                authorityEnd = i;
            }
        }
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        String hosts = rest.substring(at + 1, authorityEnd);
        String suffix = rest.substring(authorityEnd);
        String nodeScheme = scheme.equals(CLUSTER_TLS_SCHEME) ? "rediss://" : "redis://";
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",")) {
            if (host.isBlank()) {
                continue;
            }
            try {
                seeds.add(RedisURI.create(nodeScheme + userInfo + host.strip() + suffix));
            } catch (RuntimeException e) {
                // no cause: the parser's exceptions quote the URI, credentials included
                throw new IllegalArgumentException("redisUri has an invalid cluster node '"
                        + Redaction.scrub(host, uri) + "': " + Redaction.uri(uri) + " ("
                        + Redaction.scrub(String.valueOf(e.getMessage()), uri) + ")");
            }
        }
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("redisUri names no cluster node: " + Redaction.uri(uri));
        }
        return seeds;
    }
}
