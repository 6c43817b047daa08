package io.dlock;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Keeps credentials out of messages, {@code toString()} and logs: the one rule dlock applies to every Redis URI it
 * shows ({@link LockClientConfig#toString()}, connection errors, the CLI). Public so that the configuration and the
 * internals share it without the API importing internals, and so that an application can log a Redis URI the way
 * dlock does. Stateless and thread-safe; never throws.
 *
 * <p>Invariant: the user info of a URI is everything between {@code "://"} (or the start, without a scheme) and the
 * <em>last</em> {@code '@'} of the whole text, so a password holding {@code '/'}, {@code '@'}, {@code '%'}, spaces or
 * quotes (encoded or not, even in a URI that does not parse) is always inside what is hidden. A URI whose path or
 * query holds an {@code '@'} loses a little more than its user info; never less.
 */
public final class Redaction {
    /** What replaces the user info. */
    public static final String MASK = "***";

    private Redaction() {
    }

    /** @return {@code uri} with its user info ({@code user:password}) replaced by {@value #MASK}; null for null */
    public static String uri(String uri) {
        if (uri == null) {
            return null;
        }
        int start = userInfoStart(uri);
        int at = uri.lastIndexOf('@');
        return at < start ? uri : uri.substring(0, start) + MASK + uri.substring(at);
    }

    /**
     * @return {@code text} (e.g. a parser's error message about {@code uri}) with every copy of {@code uri}'s user
     *         info, of its password, and of their percent-decoded forms replaced by {@value #MASK}
     */
    public static String scrub(String text, String uri) {
        if (text == null || uri == null) {
            return text;
        }
        int start = userInfoStart(uri);
        int at = uri.lastIndexOf('@');
        if (at < start) {
            return text;
        }
        String userInfo = uri.substring(start, at);
        String result = text.replace(uri, uri(uri));
        int colon = userInfo.indexOf(':');
        for (String secret : new String[] {userInfo, colon < 0 ? userInfo : userInfo.substring(colon + 1)}) {
            result = hide(result, secret);
            result = hide(result, decoded(secret));
        }
        return result;
    }

    private static String hide(String text, String secret) {
        return secret == null || secret.isEmpty() ? text : text.replace(secret, MASK);
    }

    private static String decoded(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static int userInfoStart(String uri) {
        int scheme = uri.indexOf("://");
        return scheme < 0 ? 0 : scheme + 3;
    }
}
