package io.dlock.chaos;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The little of RESP2 the suite speaks to Redis itself: commands as arrays of bulk strings, and every reply type. */
final class Resp {
    /** An error reply ({@code -ERR …}). */
    static final class ErrorReply extends IOException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    private Resp() {
    }

    /** @return one command, ready to send */
    static byte[] encode(String... args) {
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

    /**
     * Reads one reply: a String (simple or bulk), a Long, a List of those, or null.
     *
     * @throws ErrorReply  when it is an error
     * @throws IOException when the stream ends or breaks first
     */
    static Object read(InputStream in) throws IOException {
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
