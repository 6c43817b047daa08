package io.dlock.bench;

import io.dlock.internal.script.LuaScript;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The references with no lock library: a blocking raw socket speaking RESP, one request at a time. A PING round trip
 * is the floor of any request; an acquire+release script cycle (dlock's own scripts, by SHA) is the floor of any Java
 * lock with Redisson's wire layout.
 */
final class RawFloor implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RawFloor(String uri) throws IOException {
        URI parsed = URI.create(uri);
        socket = new Socket(parsed.getHost(), parsed.getPort());
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
    }

    /** @return PING round trips per second over {@code duration} */
    double pings(Duration duration) throws IOException {
        byte[] ping = command("PING");
        long end = System.nanoTime() + duration.toNanos();
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            out.write(ping);
            out.flush();
            readReply();
            n++;
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    /** @return acquire+release cycles per second over {@code duration} */
    double lockCycles(Duration duration) throws IOException {
        LuaScript acquire = LuaScript.load("lock_acquire");
        LuaScript release = LuaScript.load("lock_release");
        out.write(command("SCRIPT", "LOAD", acquire.text()));
        out.write(command("SCRIPT", "LOAD", release.text()));
        out.flush();
        readReply();
        readReply();
        String field = "00000000-0000-0000-0000-000000000000:1";
        // the client's known hold count: 0 before the acquire, 0 after the release
        byte[] lock = command("EVALSHA", acquire.sha(), "1", "floor", "30000", field, "0");
        byte[] unlock = command("EVALSHA", release.sha(), "1", "floor", field, "30000", "publish",
                "redisson_lock__channel:{floor}", "0", "release");
        long end = System.nanoTime() + duration.toNanos();
        long n = 0;
        long start = System.nanoTime();
        while (System.nanoTime() < end) {
            out.write(lock);
            out.flush();
            readReply();
            out.write(unlock);
            out.flush();
            readReply();
            n++;
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static byte[] command(String... parts) {
        StringBuilder b = new StringBuilder("*").append(parts.length).append("\r\n");
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            b.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads one reply (simple string, error, integer, bulk or nil); enough for these commands. */
    private void readReply() throws IOException {
        int type = in.read();
        String line = readLine();
        switch (type) {
            case '+', ':' -> { }
            case '-' -> throw new IOException("Redis error: " + line);
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length >= 0) {
                    in.readNBytes(length + 2);
                }
            }
            default -> throw new IOException("unexpected reply type " + (char) type + line);
        }
    }

    private String readLine() throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\r'; ) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.append((char) c);
        }
        in.read();
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
