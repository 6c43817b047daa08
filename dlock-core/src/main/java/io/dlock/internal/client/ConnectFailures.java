package io.dlock.internal.client;

import io.dlock.ConnectionFailedException.Reason;
import io.dlock.ConnectionFailedException;
import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandTimeoutException;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;

/**
 * Names the real cause of a failure to connect ({@link Reason}) from what Lettuce, Netty and the JDK threw, and builds
 * the {@link ConnectionFailedException} whose message starts with it.
 *
 * <p>The order of the checks matters: a Redis error reply ({@code WRONGPASS}, {@code NOPERM}) wins over the
 * connection exception that wraps it; a host name check that failed wins over the certificate exception that carries
 * it; a TLS failure wins over the closed connection that follows it; a connection that the server closed before any
 * reply, with no TLS involved, is the server waiting for a TLS handshake.
 */
final class ConnectFailures {
    private ConnectFailures() {
    }

    /**
     * @param where    where it connected, without credentials
     * @param scrubber removes the credentials of the endpoint from a driver's message
     * @return the exception for {@code error}, its message starting with the reason
     */
    static ConnectionFailedException failure(String where, Throwable error, boolean tls, String step,
                                             UnaryOperator<String> scrubber) {
        Throwable outer = Errors.unwrap(error);
        Reason reason = classify(outer, tls);
        String detail = scrubber.apply(String.valueOf(outer.getMessage()) + Errors.rootCause(outer));
        if (reason == Reason.UNREACHABLE && tls && detail.contains("initialization timed out")) {
            // a plain-text Redis port reads a TLS handshake as the start of a command and waits for its end
            detail += " (no answer to the TLS handshake: is the port a TLS port, or is redis:// meant?)";
        }
        String prefix = reason == Reason.OTHER ? "" : reason.description() + ": ";
        return new ConnectionFailedException(reason, prefix + "cannot connect to Redis at " + where
                + (step == null ? "" : ": " + step) + ": " + detail + hint(reason), outer);
    }

    /** @return why {@code error} (a failed connect or command while connecting) happened */
    static Reason classify(Throwable error, boolean tls) {
        List<Throwable> chain = chain(error);
        for (Throwable t : chain) {
            String message = String.valueOf(t.getMessage());
            if (startsWithAny(message, "WRONGPASS", "NOAUTH", "ERR invalid password", "ERR AUTH",
                    "ERR Client sent AUTH", "ERR invalid username-password")) {
                return Reason.AUTHENTICATION_REFUSED;
            }
            if (message.startsWith("NOPERM")) {
                return Reason.PERMISSION_DENIED;
            }
        }
        for (Throwable t : chain) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof CertificateException
                    && (message.contains("No subject alternative") || message.contains("No name matching"))) {
                return Reason.HOST_NAME_NOT_IN_CERTIFICATE;
            }
        }
        for (Throwable t : chain) {
            if (t instanceof CertPathBuilderException || t instanceof CertPathValidatorException
                    || String.valueOf(t.getMessage()).contains("PKIX path")) {
                return Reason.CERTIFICATE_NOT_TRUSTED;
            }
        }
        for (Throwable t : chain) {
            if (t instanceof SSLException) {
                return Reason.TLS_HANDSHAKE_FAILED;
            }
        }
        for (Throwable t : chain) {
            if (t instanceof ConnectException || t instanceof UnknownHostException
                    || t instanceof NoRouteToHostException || t instanceof SocketTimeoutException
                    || t instanceof RedisCommandTimeoutException) {
                return Reason.UNREACHABLE;
            }
        }
        if (!tls) {
            for (Throwable t : chain) {
                String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
                // a TLS port closes a plain-text connection at its first bytes, before any reply
                if (message.contains("connection closed") || message.contains("connection reset")) {
                    return Reason.SERVER_EXPECTS_TLS;
                }
            }
        }
        return Reason.OTHER;
    }

    /**
     * Whether {@code error} may hide its cause, so that another attempt is needed to learn it. On a fast loopback the
     * server's answer to the handshake (a {@code WRONGPASS}, say) can close the connection before Lettuce reports the
     * answer; Lettuce then fails the connect with {@code IllegalStateException: RedisHandshakeHandler not registered}
     * or as a connection closed before any reply, which is also what a TLS port does to plain text
     * ({@link Reason#SERVER_EXPECTS_TLS}). A real cause repeats on every attempt; the race does not (about 1 connect in
     * 100 with a wrong password, measured).
     *
     * @return whether the failure is one of those two
     */
    static boolean mayHideItsCause(Throwable error, boolean tls) {
        for (Throwable t : chain(error)) {
            if (t instanceof IllegalStateException
                    && String.valueOf(t.getMessage()).contains("RedisHandshakeHandler not registered")) {
                return true;
            }
        }
        return classify(error, tls) == Reason.SERVER_EXPECTS_TLS;
    }

    private static String hint(Reason reason) {
        switch (reason) {
            case SERVER_EXPECTS_TLS:
                return " (a plain-text connection was closed before any reply, as a TLS port does: use rediss://, "
                        + "or tls(true))";
            case HOST_NAME_NOT_IN_CERTIFICATE:
                return " (connect with a name the certificate carries, or verify the certificate chain only: "
                        + "TlsSettings verification CA)";
            default:
                return "";
        }
    }

    private static boolean startsWithAny(String message, String... prefixes) {
        for (String prefix : prefixes) {
            if (message.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return {@code error}, its causes and, depth first, their suppressed exceptions with their causes (Lettuce's
     *         cluster client reports each seed's failure as a suppressed exception)
     */
    private static List<Throwable> chain(Throwable error) {
        List<Throwable> chain = new ArrayList<>();
        add(chain, error);
        return chain;
    }

    private static void add(List<Throwable> chain, Throwable error) {
        for (Throwable t = error; t != null && !chain.contains(t) && chain.size() < 50; t = t.getCause()) {
            chain.add(t);
            for (Throwable suppressed : t.getSuppressed()) {
                add(chain, suppressed);
            }
        }
    }
}
