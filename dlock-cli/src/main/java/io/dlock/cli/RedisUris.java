package io.dlock.cli;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
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

    /**
     * The URI with its user info (user and password) replaced by {@code ***}, for messages. The user info is everything
     * between {@code ://} (or the start) and the <em>last</em> {@code @}: a password typed without percent-encoding
     * may contain {@code /}, {@code @}, {@code %}, spaces and quotes, none of which may end it early here.
     */
    static String redact(String uri) {
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return uri;
        }
        int start = uri.indexOf("://");
        start = start >= 0 && start < at ? start + 3 : 0;
        return uri.substring(0, start) + "***" + uri.substring(at);
    }

    /** @return whether {@code uri} names a user or a password */
    static boolean hasCredentials(String uri) {
        return userInfo(uri) != null;
    }

    /**
     * @return the password as written in {@code uri} (still percent-encoded): the user info after its first
     * {@code :}, or the whole user info when it has none ({@code redis://password@host}, as Lettuce reads it); null
     * when there is no user info
     */
    static String password(String uri) {
        String info = userInfo(uri);
        if (info == null) {
            return null;
        }
        int colon = info.indexOf(':');
        return colon >= 0 ? info.substring(colon + 1) : info;
    }

    /**
     * @param encoded a percent-encoded password
     * @param source  where it came from, for the message
     * @return {@code uri} with {@code encoded} as its password: after its user name when it names one
     *         ({@code redis://user@host}), else with none ({@code redis://:password@host})
     * @throws CliException (usage) when {@code uri} carries a password already
     */
    static String withPassword(String uri, String encoded, String source) {
        String info = userInfo(uri);
        if (info != null && info.contains(":")) {
            throw CliException.usage(source + " gives the password, but the Redis URI '" + redact(uri)
                    + "' carries one too: give it once");
        }
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        String rest = info == null ? uri.substring(start) : uri.substring(uri.lastIndexOf('@') + 1);
        return uri.substring(0, start) + (info == null ? "" : info) + ":" + encoded + "@" + rest;
    }

    /** @return {@code text} with every byte but letters, digits and {@code - . _ ~} percent-encoded (UTF-8) */
    static String percentEncode(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /**
     * @param passwordElsewhere whether the password is given apart from the URI: then {@code user@} is a user name
     * @return whether {@code uri} carries a password ({@code user:password@}, or {@code password@} as Lettuce reads it
     *         when no password is given elsewhere)
     */
    static boolean hasPassword(String uri, boolean passwordElsewhere) {
        String info = userInfo(uri);
        if (info == null) {
            return false;
        }
        int colon = info.indexOf(':');
        return colon >= 0 ? colon < info.length() - 1 : !passwordElsewhere;
    }

    private static String userInfo(String uri) {
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return null;
        }
        int start = uri.indexOf("://");
        start = start >= 0 && start < at ? start + 3 : 0;
        return at > start ? uri.substring(start, at) : null;
    }

    /** {@code %XX} sequences decoded as UTF-8 ({@code +} stays as it is); malformed ones are kept as they are. */
    static String percentDecode(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int i = 0;
        while (i < text.length()) {
            if (text.charAt(i) == '%' && i + 2 < text.length() && Character.digit(text.charAt(i + 1), 16) >= 0
                    && Character.digit(text.charAt(i + 2), 16) >= 0) {
                bytes.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                i += 3;
            } else {
                int end = i + Character.charCount(text.codePointAt(i));
                bytes.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end;
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
