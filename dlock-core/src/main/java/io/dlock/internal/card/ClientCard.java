package io.dlock.internal.card;

import io.dlock.ClientIdentity;

import java.util.Map;
import java.util.Optional;

/**
 * The layout of a client's card (docs/protocol.md §6.1), written once here for the writer ({@link CardKeeper}) and
 * the readers ({@link CardReader}): the key {@code dlock_client:{CID}}, a hash with the fields {@code host},
 * {@code pid}, {@code application} and {@code since} (when the client connected, epoch ms of its wall clock), kept
 * {@value #TTL_WATCHDOGS} watchdog timeouts. dlock only: Redisson neither writes nor reads it.
 */
public final class ClientCard {
    /** The card's key prefix; the client id is the key's Cluster hash tag, so each card lives in its client's slot. */
    public static final String PREFIX = "dlock_client";
    /** How many watchdog timeouts a card lives without a refresh (refreshes come three times per watchdog timeout). */
    public static final int TTL_WATCHDOGS = 3;

    static final String HOST = "host";
    static final String PID = "pid";
    static final String APPLICATION = "application";
    static final String SINCE = "since";

    private ClientCard() {
    }

    /** @return {@code dlock_client:{clientId}} */
    public static String key(String clientId) {
        return PREFIX + ":{" + clientId + "}";
    }

    /** @return the card's time to live for a client with this watchdog timeout */
    static long ttlMillis(long watchdogMs) {
        return TTL_WATCHDOGS * watchdogMs;
    }

    /** @return the card's fields and values, flat ({@code field, value, …}), as the card script takes them */
    static String[] fields(ClientIdentity identity, long sinceEpochMs) {
        return new String[] {HOST, identity.host(), PID, Long.toString(identity.pid()),
                APPLICATION, identity.application(), SINCE, Long.toString(sinceEpochMs)};
    }

    /**
     * Reads a card back: empty when {@code fields} is not one dlock writes (no host, a pid that is not a number), so a
     * hash someone else left under the name is never taken for a client.
     */
    static Optional<ClientIdentity> identity(String clientId, Map<String, String> fields) {
        String host = fields.get(HOST);
        String pid = fields.get(PID);
        if (host == null || host.isEmpty() || pid == null) {
            return Optional.empty();
        }
        try {
            String application = fields.get(APPLICATION);
            return Optional.of(new ClientIdentity(clientId, host, Long.parseLong(pid.trim()),
                    application == null ? "" : application));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
