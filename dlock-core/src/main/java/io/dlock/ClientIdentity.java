package io.dlock;

import java.util.Objects;

/**
 * Who a {@link LockClient} is, for people reading who holds or leads: the client's id (the prefix of every owner field
 * it writes), the host and process it runs in, and the application it says it belongs to. Immutable.
 *
 * @param clientId    the client's UUID ({@link LockClient#getId()})
 * @param host        the host name of the machine, as the JVM knows it (its address when the name cannot be found)
 * @param pid         the process id, or -1 when the platform does not tell
 * @param application the application name set with {@link LockClientConfig.Builder#applicationName}; empty when none
 *                    was set
 */
public record ClientIdentity(String clientId, String host, long pid, String application) {

    /** @throws NullPointerException when a component is null */
    public ClientIdentity {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(application, "application");
    }

    /** @return {@code application@host:pid (clientId)}, the application left out when empty */
    @Override
    public String toString() {
        return (application.isEmpty() ? "" : application + "@") + host + ":" + pid + " (" + clientId + ")";
    }
}
