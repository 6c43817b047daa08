package io.dlock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The protected resource: a register in the orchestrating JVM, reached by the workers over a loopback socket, that
 * rejects every write carrying a fencing token lower than the highest it has accepted (equal is accepted: one holder
 * writes several times under one token).
 *
 * <p>Why here and not in Redis: the store must never be faulted, and its decisions must be recorded on the same
 * clock as the nemesis' faults, in the process that checks them. A second {@code redis-server} with a Lua
 * compare-and-set would do the same job with one more process to keep alive and to leave behind.
 *
 * <p>Protocol, one line each way: {@code W <writer> <token>} → {@code A} (accepted) or {@code R <highest>}
 * (rejected). Every decision is recorded as a {@code STORE_ACCEPTED}/{@code STORE_REJECTED} event, in the order the
 * store took them. A second register, of the leader election's epochs ({@link ElectionLoop}), has the same rule and
 * its own highest: {@code E <writer> <epoch> <guardNanos>}, recorded as {@code REGISTER_ACCEPTED}/
 * {@code REGISTER_REJECTED} with when the writer's guard began. Thread-safe.
 */
public final class FencingStorage implements AutoCloseable {
    private final ServerSocket server;
    private final EventLog log;
    private final Thread acceptor;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private long highest = Long.MIN_VALUE;
    private long highestEpoch = Long.MIN_VALUE;
    private long accepted;
    private long rejected;
    private volatile boolean closed;

    private FencingStorage(ServerSocket server, EventLog log) {
        this.server = server;
        this.log = log;
        this.acceptor = new Thread(this::acceptLoop, "fencing-store-acceptor");
        this.acceptor.setDaemon(true);
    }

    /** Listens on a free loopback port. */
    public static FencingStorage start(EventLog log) {
        try {
            ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            FencingStorage storage = new FencingStorage(socket, log);
            storage.acceptor.start();
            return storage;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the fencing store's socket", e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The store's rule, atomically: accept {@code token} unless a higher one was accepted before. */
    synchronized String write(String writer, long token) {
        if (token >= highest) {
            highest = token;
            accepted++;
            log.record(Event.Type.STORE_ACCEPTED, token, writer);
            return "A";
        }
        rejected++;
        log.record(Event.Type.STORE_REJECTED, token, writer + " " + highest);
        return "R " + highest;
    }

    /** The election register's rule, atomically: accept {@code epoch} unless a higher one was accepted before. */
    synchronized String writeEpoch(String writer, long epoch, long guardNanos) {
        if (epoch >= highestEpoch) {
            highestEpoch = epoch;
            log.record(Event.Type.REGISTER_ACCEPTED, epoch, writer + " guardAt=" + guardNanos);
            return "A";
        }
        log.record(Event.Type.REGISTER_REJECTED, epoch, writer + " guardAt=" + guardNanos + " highest="
                + highestEpoch);
        return "R " + highestEpoch;
    }

    public synchronized long accepted() {
        return accepted;
    }

    public synchronized long rejected() {
        return rejected;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                connections.add(socket);
                Thread serve = new Thread(() -> serve(socket), "fencing-store-conn");
                serve.setDaemon(true);
                serve.start();
            } catch (IOException e) {
                if (!closed) {
                    log.record(Event.Type.NOTE, "store accept failed: " + e);
                }
            }
        }
    }

    private void serve(Socket socket) {
        try (socket;
             BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                     StandardCharsets.US_ASCII))) {
            OutputStream out = socket.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                String[] parts = line.split(" ");
                String reply;
                if (parts.length == 3 && parts[0].equals("W")) {
                    reply = write(parts[1], Long.parseLong(parts[2]));
                } else if (parts.length == 4 && parts[0].equals("E")) {
                    reply = writeEpoch(parts[1], Long.parseLong(parts[2]), Long.parseLong(parts[3]));
                } else {
                    reply = "E bad request";
                }
                out.write((reply + "\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (SocketException closedByPeerOrUs) {
            // a worker died or the store closed
        } catch (IOException | NumberFormatException e) {
            if (!closed) {
                log.record(Event.Type.NOTE, "store connection failed: " + e);
            }
        } finally {
            connections.remove(socket);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Socket socket : connections) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
