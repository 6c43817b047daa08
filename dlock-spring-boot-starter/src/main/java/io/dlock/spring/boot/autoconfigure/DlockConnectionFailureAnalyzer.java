package io.dlock.spring.boot.autoconfigure;

import io.dlock.ConnectionFailedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Turns a start-up that failed because the {@code LockClient} could not connect into Spring Boot's "APPLICATION FAILED
 * TO START" report: dlock's description, which starts with the cause ({@link ConnectionFailedException.Reason}) and
 * never holds credentials, and the action, naming the property to set. Registered in {@code META-INF/spring.factories};
 * Boot calls it on the thread that ran the application, once per failed start.
 */
final class DlockConnectionFailureAnalyzer extends AbstractFailureAnalyzer<ConnectionFailedException> {
    private final Environment environment;

    /** @param environment the failed application's environment (Boot passes it), to name the properties in use */
    DlockConnectionFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConnectionFailedException cause) {
        return new FailureAnalysis("dlock could not connect to Redis: " + cause.getMessage(), action(cause.reason()),
                cause);
    }

    private String action(ConnectionFailedException.Reason reason) {
        boolean uri = environment != null && environment.containsProperty("dlock.redis-uri");
        String where = uri ? "dlock.redis-uri" : "spring.data.redis.host and spring.data.redis.port (or "
                + "spring.data.redis.url, .sentinel.*, .cluster.*)";
        switch (reason) {
            case AUTHENTICATION_REFUSED:
                return "Set the Redis user and password that Redis knows: " + (uri
                        ? "in dlock.redis-uri, redis://user:password@host:port (percent-encoded)"
                        : "spring.data.redis.username and spring.data.redis.password") + ".";
            case PERMISSION_DENIED:
                return "Allow the Redis user the commands, keys and channels dlock needs (README, \"Redis ACL\"), or, "
                        + "when the ACL rule allows lock names with a prefix only, set dlock.tuning.probe-lock-name "
                        + "to a name with that prefix (e.g. lock:dlock-probe).";
            case CERTIFICATE_NOT_TRUSTED:
                return "Trust the CA that signed the server's certificate: set dlock.tls.trusted-certificates (PEM), "
                        + "dlock.tls.trust-store, or an SSL bundle (dlock.tls.bundle, spring.data.redis.ssl.bundle).";
            case HOST_NAME_NOT_IN_CERTIFICATE:
                return "Connect with a host name that the server's certificate names (" + where + "), or set "
                        + "dlock.tls.verify=ca to check the certificate's chain but not the host name.";
            case SERVER_EXPECTS_TLS:
                return "Connect with TLS: " + (uri ? "a rediss:// dlock.redis-uri"
                        : "spring.data.redis.ssl.enabled=true") + ", with the trust settings (dlock.tls.*).";
            case TLS_HANDSHAKE_FAILED:
                return "Check the TLS settings (dlock.tls.*): a server with tls-auth-clients yes needs a client "
                        + "certificate, dlock.tls.key-store.";
            case UNREACHABLE:
                return "Check that Redis runs and can be reached at " + where + " (with TLS: that the port is a TLS "
                        + "port), or give it more time with dlock.command-timeout.";
            default:
                return "Check " + where + " and the Redis server's log.";
        }
    }
}
