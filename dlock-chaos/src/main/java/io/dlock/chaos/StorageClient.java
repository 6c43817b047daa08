package io.dlock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/** A worker's connection to the {@link FencingStorage}; reconnects after a failure. Not thread-safe. */
final class StorageClient implements AutoCloseable {
    /** The store's answer to one write. */
    record Outcome(boolean accepted, long highest) {
    }

    private final LazyConnection<BufferedReader> connection;

    StorageClient(int port, int timeoutMs) {
        this.connection = new LazyConnection<>(InetAddress.getLoopbackAddress().getHostAddress(), port, timeoutMs,
                input -> new BufferedReader(new InputStreamReader(input, StandardCharsets.US_ASCII)));
    }

    /** @throws IOException when the store cannot be reached or does not answer within the timeout */
    Outcome write(String writer, long token) throws IOException {
        return connection.exchange((out, in) -> {
            out.write(("W " + writer + " " + token + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("the store closed the connection");
            }
            if (reply.equals("A")) {
                return new Outcome(true, token);
            }
            if (reply.startsWith("R ")) {
                return new Outcome(false, Long.parseLong(reply.substring(2)));
            }
            throw new IOException("unexpected answer from the store: " + reply);
        });
    }

    /**
     * A write to the election register ({@link FencingStorage}).
     *
     * @param guardNanos when the writer's guard began, on the host's monotonic clock
     * @throws IOException when the store cannot be reached or does not answer within the timeout
     */
    Outcome writeEpoch(String writer, long epoch, long guardNanos) throws IOException {
        return connection.exchange((out, in) -> {
            out.write(("E " + writer + " " + epoch + " " + guardNanos + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("the store closed the connection");
            }
            return new Outcome(reply.equals("A"), reply.startsWith("R ") ? Long.parseLong(reply.substring(2)) : epoch);
        });
    }

    @Override
    public void close() {
        connection.close();
    }
}
