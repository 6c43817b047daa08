package io.dlock.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A worker's connection to the {@link FencingStorage}; reconnects after a failure. Not thread-safe. */
final class StorageClient implements AutoCloseable {
    /** The store's answer to one write. */
    record Outcome(boolean accepted, long highest) {
    }

    private final int port;
    private final int timeoutMs;
    private Socket socket;
    private BufferedReader in;

    StorageClient(int port, int timeoutMs) {
        this.port = port;
        this.timeoutMs = timeoutMs;
    }

    /** @throws IOException when the store cannot be reached or does not answer within the timeout */
    Outcome write(String writer, long token) throws IOException {
        try {
            if (socket == null) {
                socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMs);
                socket.setSoTimeout(timeoutMs);
                in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            }
            socket.getOutputStream().write(("W " + writer + " " + token + "\n").getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
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
                // reconnecting anyway
            }
        }
        socket = null;
        in = null;
    }
}
