package io.dlock.chaos;

import io.dlock.redisprocess.Resp;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * One persistent connection to Redis for one thread, spoken with {@link Resp}: opened on first use and closed after
 * any failure but an error reply (a reply that timed out may still arrive, so a connection is never used again after
 * one), then opened afresh by the next call. Every connect and read is bounded by the timeout. Not thread-safe.
 */
final class RedisLine implements AutoCloseable {
    private final String host;
    private final int port;
    private final int timeoutMs;
    private Socket socket;
    private BufferedInputStream in;

    RedisLine(String host, int port, long timeoutMs) {
        this.host = host;
        this.port = port;
        this.timeoutMs = (int) Math.max(1, timeoutMs);
    }

    /** @return whether a connection is open (made by an earlier call, which CLIENT KILL may have cut since) */
    boolean isOpen() {
        return socket != null;
    }

    /**
     * Sends one command and reads its reply: a String (simple or bulk), a Long, a List of those, or null.
     *
     * @throws Resp.ErrorReplyException when Redis answers with an error (the connection stays open)
     * @throws IOException     when Redis cannot be reached, the connection breaks, or no reply comes in time
     */
    Object call(String... args) throws IOException {
        try {
            if (socket == null) {
                Socket s = new Socket();
                socket = s;
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(host, port), timeoutMs);
                s.setSoTimeout(timeoutMs);
                in = new BufferedInputStream(s.getInputStream());
            }
            OutputStream out = socket.getOutputStream();
            out.write(Resp.encode(args));
            out.flush();
            return Resp.read(in);
        } catch (Resp.ErrorReplyException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // gone either way
            }
            socket = null;
            in = null;
        }
    }
}
