package io.dlock.internal.client;

import io.dlock.ClientIdentity;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** The host and process this JVM runs as, looked up once per JVM (a host name lookup may ask DNS). */
public final class LocalProcess {
    private static final String HOST = hostName();
    private static final long PID = pid();

    private LocalProcess() {
    }

    /** @return the identity of a client of this process with {@code clientId} and {@code application} */
    public static ClientIdentity identity(String clientId, String application) {
        return new ClientIdentity(clientId, HOST, PID, application);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | SecurityException e) {
            String fromEnvironment = System.getenv("HOSTNAME");
            return fromEnvironment == null || fromEnvironment.isBlank() ? "unknown-host" : fromEnvironment;
        }
    }

    private static long pid() {
        try {
            return ProcessHandle.current().pid();
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }
}
