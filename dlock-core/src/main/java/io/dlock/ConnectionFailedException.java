package io.dlock;

import java.util.Objects;

/**
 * {@link LockClient#create} (or {@link LockClient#connect}) could not connect, and {@link #reason()} says why, as
 * far as the failure shows it: the message starts with the reason's {@linkplain Reason#description() description},
 * then names where it connected (never with credentials) and the error of Redis or of the TLS handshake. Tools map
 * the reason to what they report: the {@code dlock} command line to its exit codes, the Spring Boot starter to its
 * start-up failure report.
 */
public class ConnectionFailedException extends LockException {
    private static final long serialVersionUID = 1L;

    /** Why connecting failed. Whether retrying can help is {@link #isTransient()}. */
    public enum Reason {
        /**
         * Nothing answered: connection refused, unknown host, connect or command timeout (a TLS handshake that got no
         * answer too: Redis waits in silence when a plain-text port gets one).
         */
        UNREACHABLE("Redis unreachable", true),
        /** Redis refused the user or password ({@code WRONGPASS}, {@code NOAUTH}: none given but one is needed). */
        AUTHENTICATION_REFUSED("authentication refused", false),
        /** The Redis user may not run a command or use a channel that dlock needs ({@code NOPERM}). */
        PERMISSION_DENIED("ACL permission missing", false),
        /** The server's certificate is not signed by a trusted CA (the trust store does not know it). */
        CERTIFICATE_NOT_TRUSTED("certificate not trusted", false),
        /** The server's certificate is trusted but does not name the host connected to. */
        HOST_NAME_NOT_IN_CERTIFICATE("host name not in certificate", false),
        /**
         * The server closed a plain-text connection without answering, on each of three attempts: it expects TLS
         * ({@code rediss://}). (A refused handshake can look like this once, in a race inside the driver; a connect
         * that looks like this is tried again before it is reported.)
         */
        SERVER_EXPECTS_TLS("server expects TLS", false),
        /** The TLS handshake failed otherwise (the server refused the client certificate, or asked for one). */
        TLS_HANDSHAKE_FAILED("TLS handshake failed", false),
        /** Anything else Redis or the connection failed with. */
        OTHER("cannot connect to Redis", true);

        private final String description;
        private final boolean transientFailure;

        Reason(String description, boolean transientFailure) {
            this.description = description;
            this.transientFailure = transientFailure;
        }

        /** @return a few lower-case words naming the reason, as the exception's message starts with them */
        public String description() {
            return description;
        }

        /**
         * @return whether trying again later, with the same settings, may succeed (Redis down or failing); false when
         *         only a change of settings, certificates or ACL rules can help
         */
        public boolean isTransient() {
            return transientFailure;
        }
    }

    private final Reason reason;

    /**
     * @param reason  why it failed
     * @param message the whole message, which should start with {@code reason.description()}
     * @param cause   the failure of Redis, Lettuce or the TLS handshake, or null
     */
    public ConnectionFailedException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** @return why connecting failed; never null */
    public Reason reason() {
        return reason;
    }

    /** @return {@code reason().isTransient()} */
    public boolean isTransient() {
        return reason.isTransient();
    }
}
