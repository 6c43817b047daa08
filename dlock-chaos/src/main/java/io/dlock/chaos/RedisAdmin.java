package io.dlock.chaos;

import io.dlock.redisprocess.Resp;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;

/**
 * The nemesis' line to the lock's Redis: one short-lived connection per command (so that no fault it injects,
 * {@code CLIENT KILL} included, leaves it with a broken connection), spoken with {@link Resp}. Thread-safe.
 */
final class RedisAdmin {
    private final String host;
    private final int port;

    RedisAdmin(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /**
     * Sends one command and reads its reply: a String (simple or bulk), a Long, a List of those, or null.
     *
     * @throws Resp.ErrorReplyException when Redis answers with an error
     * @throws IOException when it cannot be reached or does not answer within {@code timeout}
     */
    Object call(Duration timeout, String... args) throws IOException {
        int millis = (int) Math.max(1, timeout.toMillis());
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(Resp.encode(args));
            out.flush();
            return Resp.read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    Object call(String... args) throws IOException {
        return call(Duration.ofSeconds(2), args);
    }
}
