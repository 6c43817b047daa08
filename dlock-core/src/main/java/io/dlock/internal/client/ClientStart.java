package io.dlock.internal.client;

import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.UnsupportedServerException;
import io.dlock.internal.Errors;
import io.dlock.internal.transport.Endpoint;
import io.dlock.internal.transport.RedisTransport;
import io.dlock.internal.transport.ServerVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Opens a client's connections and checks the server behind them before any object is handed out. */
final class ClientStart {
    private static final Logger log = LoggerFactory.getLogger(ClientStart.class);

    /** How many times {@link #open} tries a connection whose failure lost its cause. */
    private static final int OPEN_ATTEMPTS = 3;

    private ClientStart() {
    }

    /**
     * Connects to the Redis deployment of {@code config} (standalone, Sentinel or Cluster); blocks until connected or
     * the command timeout passed.
     *
     * @return the open transport, its server checked; closed again when a check fails
     * @throws IllegalArgumentException when the URI is not valid
     * @throws io.dlock.ConnectionFailedException when Redis cannot be reached, refuses the credentials, the TLS
     *                                  handshake fails or the user may not use the lock channels
     *                                  ({@link ChannelPermissionProbe}); its reason says which
     * @throws UnsupportedServerException when the server is older than {@link ServerVersion#MINIMUM}
     */
    static RedisTransport connect(LockClientConfig config) {
        Endpoint endpoint = Endpoint.of(config);
        RedisTransport transport = open(config, endpoint);
        try {
            requireSupportedServer(transport, config, endpoint);
            ChannelPermissionProbe.check(transport, config, endpoint);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return transport;
    }

    /**
     * Opens the transport. A connect whose failure may hide its cause ({@link ConnectFailures#mayHideItsCause}: the
     * server's refusal of the handshake lost in a race inside Lettuce) is tried again, up to {@value #OPEN_ATTEMPTS}
     * times in all, so that the failure reported names its real reason.
     */
    private static RedisTransport open(LockClientConfig config, Endpoint endpoint) {
        for (int attempt = 1; ; attempt++) {
            try {
                return RedisTransport.open(config, endpoint);
            } catch (IllegalArgumentException e) {
                throw e;
            } catch (RuntimeException e) {
                if (attempt < OPEN_ATTEMPTS && ConnectFailures.mayHideItsCause(e, endpoint.isTls())) {
                    log.debug("connecting to Redis at {} failed in a way that may hide its cause; trying again",
                            endpoint.description());
                    continue;
                }
                throw ConnectFailures.failure(endpoint.description(), e, endpoint.isTls(), null, endpoint::scrub);
            }
        }
    }

    /**
     * Refuses a server older than {@link ServerVersion#MINIMUM} (on a cluster: the node that answers {@code INFO}),
     * before any lock is used. A user whose ACL rule denies {@code INFO}, or a server where {@code INFO} is renamed or
     * disabled ({@code rename-command INFO ""}), skips the check (logged as a warning).
     *
     * @throws LockException naming the server's version and the minimum, or when {@code INFO} fails otherwise
     */
    private static void requireSupportedServer(RedisTransport transport, LockClientConfig config,
                                               Endpoint endpoint) {
        String where = transport.describe();
        String info;
        try {
            info = transport.commands().info("server").toCompletableFuture()
                    .get(config.commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("interrupted while connecting to Redis at " + where, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = Errors.unwrap(e);
            String message = String.valueOf(cause.getMessage());
            if (message.startsWith("NOPERM")) {
                log.warn("cannot check the version of Redis at {}: this user may not run INFO ({}); dlock needs "
                        + "Redis {} or later", where, message, ServerVersion.MINIMUM_TEXT);
                return;
            }
            if (message.startsWith("ERR unknown command")) {
                log.warn("cannot check the version of Redis at {}: INFO is renamed or disabled on this server ({}); "
                        + "dlock needs Redis {} or later", where, endpoint.scrub(message), ServerVersion.MINIMUM_TEXT);
                return;
            }
            throw ConnectFailures.failure(where, cause, endpoint.isTls(), "INFO failed", endpoint::scrub);
        }
        ServerVersion version = ServerVersion.fromInfo(info).orElseThrow(() -> new LockException(
                "Redis at " + where + " reports no redis_version in INFO; dlock needs Redis "
                        + ServerVersion.MINIMUM_TEXT + " or later"));
        if (!version.isSupported()) {
            throw new UnsupportedServerException("Redis at " + where + " is " + ServerVersion.serverName(info)
                    + ", older than " + ServerVersion.MINIMUM_TEXT + ", the oldest that dlock supports (its lock scripts need "
                    + "commands that older servers lack)");
        }
        log.debug("connected to {} at {}", ServerVersion.serverName(info), where);
    }
}
