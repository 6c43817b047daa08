package io.dlock.chaos;

import io.dlock.redisprocess.Resp;

import java.io.BufferedInputStream;
import java.io.IOException;

/**
 * One persistent connection to Redis for one thread, spoken with {@link Resp}: opened on first use and closed after
 * any failure but an error reply (a reply that timed out may still arrive, so a connection is never used again after
 * one), then opened afresh by the next call. Every connect and read is bounded by the timeout. Not thread-safe.
 */
final class RedisLine implements AutoCloseable {
    private final LazyConnection<BufferedInputStream> connection;

    RedisLine(String host, int port, long timeoutMs) {
        this.connection = new LazyConnection<>(host, port, (int) Math.max(1, timeoutMs), BufferedInputStream::new);
    }

    /** @return whether a connection is open (made by an earlier call, which CLIENT KILL may have cut since) */
    boolean isOpen() {
        return connection.isOpen();
    }

    /**
     * Sends one command and reads its reply: a String (simple or bulk), a Long, a List of those, or null.
     *
     * @throws Resp.ErrorReplyException when Redis answers with an error (the connection stays open)
     * @throws IOException     when Redis cannot be reached, the connection breaks, or no reply comes in time
     */
    Object call(String... args) throws IOException {
        return connection.exchange((out, in) -> {
            out.write(Resp.encode(args));
            out.flush();
            return Resp.read(in);
        }, Resp.ErrorReplyException.class);
    }

    @Override
    public void close() {
        connection.close();
    }
}
