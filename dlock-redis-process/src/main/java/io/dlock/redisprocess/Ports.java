package io.dlock.redisprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free TCP ports on {@link RedisServer#HOST}: free when asked, so a racing process may still take one. */
final class Ports {
    /** A cluster node also listens on its port + {@value}, the cluster bus. */
    static final int BUS_PORT_OFFSET = 10_000;

    private Ports() {
    }

    /** Binds 127.0.0.1:0, closes it and returns the port the kernel chose. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(RedisServer.HOST), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + RedisServer.HOST, e);
        }
    }

    /** @return a port {@code p} below 55536 such that {@code p} and the bus port {@code p + 10000} are free now */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 55_000);
            if (isFree(port) && isFree(port + BUS_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free pair of ports p, p + 10000 on " + RedisServer.HOST);
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
