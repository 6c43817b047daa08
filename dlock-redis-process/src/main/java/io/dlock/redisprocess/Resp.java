package io.dlock.redisprocess;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for administration commands (PING, INFO, FLUSHALL, CLUSTER …, SENTINEL …): one short-lived
 * socket per call, optionally over TLS, no pooling, no pipelining. It is what {@link RedisServer} and the topologies
 * use themselves; tests may use it to talk to a server without a Redis client library. Each call blocks until the
 * reply came or its timeout passed. Stateless and thread-safe.
 *
 * <p>Replies map to Java as: simple string, integer and bulk string → {@code String}; null bulk string or null array
 * → {@code null}; array → {@code List<Object>} of the same (nested arrays included); error → {@link
 * ErrorReplyException}.
 */
public final class Resp {

    private Resp() {
    }

    /** An error reply ({@code -ERR ...}) from the server; the message is the error line without the {@code -}. */
    public static final class ErrorReplyException extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReplyException(String message) {
            super(message);
        }
    }

    /**
     * Sends one command on a fresh connection and returns its reply: the text of a simple string, the number of an
     * integer, the content of a bulk string, {@code null} for a null bulk string.
     *
     * @param timeout used as connect timeout and as read timeout
     * @throws java.net.SocketTimeoutException when the server does not answer in time
     * @throws ErrorReplyException when the server answers with an error
     * @throws IOException on any other I/O failure, or for an array reply (unsupported)
     */
    public static String call(String host, int port, Duration timeout, String... args) throws IOException {
        Object reply = command(host, port, timeout, args);
        if (reply instanceof List) {
            throw new IOException("unexpected array reply to " + args[0]);
        }
        return (String) reply;
    }

    /**
     * As {@link #call}, but also reads array replies: a {@code List<Object>} of the same kinds of elements (nested
     * arrays included).
     *
     * @throws java.net.SocketTimeoutException when the server does not answer in time
     * @throws ErrorReplyException when the server answers with an error
     * @throws IOException on any other I/O failure
     */
    public static Object command(String host, int port, Duration timeout, String... args) throws IOException {
        return command(null, host, port, timeout, args);
    }

    /**
     * As {@link #call(String, int, Duration, String...)}, over TLS when {@code tls} is not null (for example
     * {@link TlsCertificates#socketFactory()}); the handshake is part of the call and bounded by {@code timeout}.
     */
    public static String call(SSLSocketFactory tls, String host, int port, Duration timeout, String... args)
            throws IOException {
        Object reply = command(tls, host, port, timeout, args);
        if (reply instanceof List) {
            throw new IOException("unexpected array reply to " + args[0]);
        }
        return (String) reply;
    }

    /** As {@link #command(String, int, Duration, String...)}, over TLS when {@code tls} is not null. */
    public static Object command(SSLSocketFactory tls, String host, int port, Duration timeout, String... args)
            throws IOException {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket plain = new Socket()) {
            plain.setTcpNoDelay(true);
            plain.connect(new InetSocketAddress(host, port), millis);
            plain.setSoTimeout(millis);
            Socket socket = plain;
            if (tls != null) {
                SSLSocket secure = (SSLSocket) tls.createSocket(plain, host, port, true);
                secure.startHandshake();
                socket = secure;
            }
            try {
                OutputStream out = socket.getOutputStream();
                out.write(encode(args));
                out.flush();
                return readReply(new BufferedInputStream(socket.getInputStream()), true);
            } finally {
                socket.close();
            }
        }
    }

    /**
     * @return the value of {@code field} in the text of an {@code INFO} reply ({@code field:value} lines), or
     *         {@code "unknown"} when it is not there
     */
    static String infoField(String info, String field) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        return "unknown";
    }

    /**
     * Encodes one command as RESP2 (an array of bulk strings), ready to write to a connection of the caller's (for
     * callers that keep a connection open, such as a long-running probe).
     */
    public static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        writeAscii(buf, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            writeAscii(buf, "\r\n");
        }
        return buf.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Reads one reply from a connection of the caller's: a simple string as text, an integer as a {@code Long}, a
     * bulk string as text ({@code null} when null), an array as a {@code List<Object>} of the same (nested arrays
     * included).
     *
     * @throws ErrorReplyException when the server answers with an error (the connection stays usable)
     * @throws IOException when the stream ends or breaks first
     */
    public static Object read(InputStream in) throws IOException {
        return readReply(in, false);
    }

    private static Object readReply(InputStream in, boolean integersAsText) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply line");
        }
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
                return rest;
            case ':':
                return integersAsText ? rest : (Object) Long.parseLong(rest);
            case '-':
                throw new ErrorReplyException(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                if (data.length != length + 2) {
                    throw new EOFException("connection closed inside a bulk reply");
                }
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(rest);
                if (count < 0) {
                    return null;
                }
                List<Object> elements = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    elements.add(readReply(in, integersAsText));
                }
                return elements;
            }
            default:
                throw new IOException("unsupported reply: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed before a full reply");
            }
            if (previous == '\r' && b == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(b);
            previous = b;
        }
    }
}
