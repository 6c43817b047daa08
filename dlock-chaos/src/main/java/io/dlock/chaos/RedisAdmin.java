package io.dlock.chaos;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The nemesis' line to the lock's Redis: one short-lived connection per command (so that no fault it injects,
 * {@code CLIENT KILL} included, leaves it with a broken connection), a minimal RESP2 reader. Thread-safe.
 */
final class RedisAdmin {
    /** An error reply ({@code -ERR …}). */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private final String host;
    private final int port;

    RedisAdmin(String host, int port) {
        this.host = host;
        this.port = port;
    }

    /**
     * Sends one command and reads its reply: a String (simple or bulk), a Long, a List of those, or null.
     *
     * @throws ErrorReply when Redis answers with an error
     * @throws IOException when it cannot be reached or does not answer within {@code timeout}
     */
    Object call(Duration timeout, String... args) throws IOException {
        int millis = (int) Math.max(1, timeout.toMillis());
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    Object call(String... args) throws IOException {
        return call(Duration.ofSeconds(2), args);
    }

    private static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        buf.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            buf.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buf.writeBytes(bytes);
            buf.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return buf.toByteArray();
    }

    private static Object read(InputStream in) throws IOException {
        String line = line(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        String rest = line.substring(1);
        switch (line.charAt(0)) {
            case '+':
                return rest;
            case '-':
                throw new ErrorReply(rest);
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                if (data.length != length + 2) {
                    throw new EOFException("short bulk reply");
                }
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected reply: " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = buf.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            buf.write(b);
            previous = b;
        }
    }
}
