package io.dlock.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of one Redis server that can hold back what Redis sends to the client's pub/sub
 * connections (those whose client bytes carried a {@code SUBSCRIBE}) while everything else flows: a message published
 * meanwhile, and the answers to later {@code SUBSCRIBE}s, then reach the client late, in their order. How a test makes
 * a message arrive after something that happened after its publication, which timing alone cannot.
 *
 * <p>Bytes are forwarded as read, one thread per direction and connection (daemon threads). Not for production.
 */
public final class PubSubHoldingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int redisPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean holding;
    private volatile boolean closed;

    private PubSubHoldingProxy(int redisPort) throws IOException {
        this.redisPort = redisPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "pubsub-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    /** @param redisPort the loopback port of the Redis server to forward to */
    public static PubSubHoldingProxy start(int redisPort) {
        try {
            return new PubSubHoldingProxy(redisPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the URI clients connect to */
    public String uri() {
        return "redis://127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on, Redis's bytes to pub/sub connections wait, in order, until {@link #release}. */
    public void hold() {
        synchronized (gate) {
            holding = true;
        }
    }

    /** Forwards what was held, in order, and everything after it. */
    public void release() {
        synchronized (gate) {
            holding = false;
            gate.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket redis = new Socket(InetAddress.getLoopbackAddress(), redisPort);
                client.setTcpNoDelay(true);
                redis.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(redis);
                boolean[] pubSub = new boolean[1];
                pump(client.getInputStream(), redis.getOutputStream(), pubSub, true);
                pump(redis.getInputStream(), client.getOutputStream(), pubSub, false);
            } catch (IOException e) {
                if (!closed) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }

    /**
     * @param pubSub set once the client's bytes carried a SUBSCRIBE (written by the client-side pump only)
     * @param fromClient whether this pump carries the client's bytes to Redis
     */
    private void pump(InputStream in, OutputStream out, boolean[] pubSub, boolean fromClient) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    if (fromClient) {
                        // the command's name as a RESP bulk string, as Lettuce sends it (not a word in a script body)
                        if (new String(buffer, 0, n, StandardCharsets.US_ASCII).contains("$9\r\nSUBSCRIBE\r\n")) {
                            synchronized (pubSub) {
                                pubSub[0] = true;
                            }
                        }
                    } else {
                        boolean mine;
                        synchronized (pubSub) {
                            mine = pubSub[0];
                        }
                        if (mine) {
                            synchronized (gate) {
                                while (holding && !closed) {
                                    gate.wait();
                                }
                            }
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed: the other pump ends with it
            } finally {
                try {
                    out.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }, "pubsub-proxy-" + (fromClient ? "up" : "down"));
        pump.setDaemon(true);
        pump.start();
    }

    @Override
    public void close() {
        closed = true;
        release();
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
