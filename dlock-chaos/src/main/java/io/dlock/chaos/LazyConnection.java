package io.dlock.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.function.Function;

/**
 * One TCP connection for one thread: opened on first use and closed after any failure (an answer that timed out may
 * still arrive, so a connection is never used again after one), then opened afresh by the next exchange. Every
 * connect and read is bounded by the timeout. Not thread-safe.
 *
 * @param <R> what answers are read through, made once per connection from its input stream
 */
final class LazyConnection<R> implements AutoCloseable {
    /** One request and its answer, on an open connection. */
    @FunctionalInterface
    interface Exchange<R, T> {
        T run(OutputStream out, R in) throws IOException;
    }

    private final String host;
    private final int port;
    private final int timeoutMs;
    private final Function<InputStream, R> reader;
    private Socket socket;
    private R in;

    LazyConnection(String host, int port, int timeoutMs, Function<InputStream, R> reader) {
        this.host = host;
        this.port = port;
        this.timeoutMs = timeoutMs;
        this.reader = reader;
    }

    /** @return whether a connection is open (made by an earlier exchange, which the peer may have cut since) */
    boolean isOpen() {
        return socket != null;
    }

    /** {@link #exchange(Exchange, Class)} where every failure closes the connection. */
    <T> T exchange(Exchange<R, T> exchange) throws IOException {
        return exchange(exchange, null);
    }

    /**
     * Runs {@code exchange}, opening the connection first if none is open.
     *
     * @param keepsOpen a failure that leaves the connection in step (an error answer read whole), or null
     * @throws IOException when the peer cannot be reached, the connection breaks, no answer comes in time, or
     *                     {@code exchange} fails (a RuntimeException comes wrapped)
     */
    <T> T exchange(Exchange<R, T> exchange, Class<? extends IOException> keepsOpen) throws IOException {
        try {
            if (socket == null) {
                Socket s = new Socket();
                socket = s;
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(host, port), timeoutMs);
                s.setSoTimeout(timeoutMs);
                in = reader.apply(s.getInputStream());
            }
            return exchange.run(socket.getOutputStream(), in);
        } catch (IOException | RuntimeException e) {
            if (keepsOpen != null && keepsOpen.isInstance(e)) {
                throw (IOException) e;
            }
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
