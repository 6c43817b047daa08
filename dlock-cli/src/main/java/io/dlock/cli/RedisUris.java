package io.dlock.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/** Where Redis is: {@code --redis}, else {@code $DLOCK_REDIS}, else the default; checked before connecting. */
final class RedisUris {
    static final String DEFAULT = "redis://127.0.0.1:6379";
    static final String ENV = "DLOCK_REDIS";
    private static final Set<String> SCHEMES = Set.of("redis", "rediss", "redis-socket", "redis+ssl", "redis+tls",
            "redis-sentinel", "rediss-sentinel", "redis-cluster", "rediss-cluster");

    private RedisUris() {
    }

    /** @param option the value of {@code --redis}, or null */
    static String resolve(String option) {
        if (option != null) {
            return check(option, "--redis");
        }
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return check(env, ENV);
        }
        return DEFAULT;
    }

    /** @throws CliException (usage) naming {@code source} when {@code uri} is not a Redis URI */
    static String check(String uri, String source) {
        String text = uri.strip();
        URI parsed;
        try {
            parsed = new URI(text);
        } catch (URISyntaxException e) {
            throw CliException.usage(source + ": not a Redis URI: '" + redact(text) + "' (" + e.getReason()
                    + "); expected e.g. redis://host:6379");
        }
        String scheme = parsed.getScheme() == null ? null : parsed.getScheme().toLowerCase(Locale.ROOT);
        if (scheme == null || !SCHEMES.contains(scheme)) {
            throw CliException.usage(source + ": not a Redis URI: '" + redact(text)
                    + "' (the scheme must be redis:// or rediss://; e.g. redis://host:6379)");
        }
        if (scheme.equals("redis-socket")) {
            if (parsed.getPath() == null || parsed.getPath().isEmpty()) {
                throw CliException.usage(source + ": not a Redis URI: '" + redact(text) + "' (no socket path)");
            }
            return text;
        }
        if (!scheme.contains("sentinel") && !scheme.contains("cluster")) { // (several hosts: checked by the client)
            if (parsed.getHost() == null || parsed.getHost().isEmpty()) {
                throw CliException.usage(source + ": not a Redis URI: '" + redact(text)
                        + "' (no host, or a malformed port; e.g. redis://host:6379)");
            }
            if (parsed.getPort() > 65535) {
                throw CliException.usage(source + ": not a Redis URI: '" + redact(text) + "' (port out of range)");
            }
        }
        return text;
    }

    /** The URI with its password hidden, for messages. */
    static String redact(String uri) {
        return uri.replaceAll("//[^@/]*@", "//***@");
    }
}
