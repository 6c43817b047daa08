package io.dlock.redisprocess;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** An inline-command PING over a plain socket, independent of the testkit's own RESP code. */
final class RawPing {

    private RawPing() {
    }

    /**
     * @return the first reply line, e.g. {@code +PONG}
     * @throws java.net.SocketTimeoutException when nothing comes back within {@code timeoutMillis}
     */
    static String ping(int port, int timeoutMillis) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0 && b != '\r') {
                line.append((char) b);
            }
            return line.toString();
        }
    }
}
