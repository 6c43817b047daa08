package io.dlock.redisprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports on {@link RedisServer#HOST}: free when asked, so a racing process may still take one.
 *
 * <p>Ports are chosen below the kernel's ephemeral range ({@code /proc/sys/net/ipv4/ip_local_port_range}, 32768 and
 * up by default), never inside it: a server that stops and starts again on its port (a restart, a Cluster node's
 * recovery, whose bus port is its port + {@value #BUS_PORT_OFFSET}) must find the port still free, and inside the
 * ephemeral range any outgoing connection of any process on the machine (a client of another test JVM, of another
 * test run beside this one) may have been given it as its local port in the meantime: seen as a Cluster node that
 * could not come back ("Could not create server TCP listening socket 127.0.0.1:56778: bind: Address already in
 * use"). Below that range only listeners take ports, and they choose at random, so two choosers meet rarely and the
 * start-up's retry on "Address already in use" covers it.
 */
final class Ports {
    /** A cluster node also listens on its port + {@value}, the cluster bus. */
    static final int BUS_PORT_OFFSET = 10_000;
    /** The lowest port chosen: above the well-known and most registered service ports. */
    static final int LOWEST = 10_000;
    private static final Path PORT_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final int ATTEMPTS = 200;

    private Ports() {
    }

    /** @return a port below the ephemeral range that is free now (else one the kernel chooses, if none was found) */
    static int freePort() {
        int high = ephemeralLow();
        for (int attempt = 0; attempt < ATTEMPTS && high > LOWEST; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, high);
            if (isFree(port)) {
                return port;
            }
        }
        return kernelChosenPort();
    }

    /**
     * @return a port {@code p} such that {@code p} and the bus port {@code p + 10000} are free now, both below the
     *         ephemeral range where it leaves room (else anywhere below 65536)
     */
    static int freeClusterPort() {
        int high = ephemeralLow() - BUS_PORT_OFFSET;
        int low = LOWEST;
        if (high - low < 1_000) { // an ephemeral range that starts low: take what is left
            low = 20_000;
            high = 55_000;
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(low, high);
            if (isFree(port) && isFree(port + BUS_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free pair of ports p, p + 10000 on " + RedisServer.HOST);
    }

    /** @return the first port of the kernel's ephemeral range (32768 where the kernel does not say) */
    static int ephemeralLow() {
        try {
            String[] range = Files.readString(PORT_RANGE).trim().split("\\s+");
            int low = Integer.parseInt(range[0]);
            return low > LOWEST && low <= 65_535 ? low : DEFAULT_EPHEMERAL_LOW;
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }

    /** Binds 127.0.0.1:0, closes it and returns the port the kernel chose. */
    private static int kernelChosenPort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(RedisServer.HOST), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + RedisServer.HOST, e);
        }
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(RedisServer.HOST), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
