package io.dlock.internal.transport;

import io.dlock.internal.Errors;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Whether Redis answers this client: what the deadline rule asks when a timed wait ends with its attempt still
 * unanswered, to tell a slow answer from an unavailable Redis. Redis is <em>unavailable</em> when the command
 * connection is down, or when a command has waited a whole command timeout with no answer to any command of the client
 * since it was sent (a timed-out command does not end that silence; only an answer does). Otherwise an answer owed is
 * only late.
 *
 * <p>The silence is counted from the first command sent after the last answer (a command sent before that answer and
 * still unanswered is not counted until the next one is sent). Fed by every script call of the client
 * ({@link io.dlock.internal.script.ScriptRunner}: acquisitions, renewals, releases, checks).
 *
 * <p>Thread-safe, lock-free, never blocks: a volatile read per command sent and per answer, a write only when a silence
 * starts or ends. Racing updates may leave the start of a silence later than the earliest command in it, never earlier.
 */
public final class AnswerWatch {
    /** {@link #owedSince} when nothing is owed. */
    private static final long NOTHING_OWED = Long.MIN_VALUE;

    private final LongSupplier nanoTime;
    private final long commandTimeoutNanos;
    private final BooleanSupplier connected;
    /** When the first command sent since the last answer was sent, or {@link #NOTHING_OWED}. */
    private volatile long owedSince = NOTHING_OWED;

    /**
     * @param nanoTime  the client's monotonic clock
     * @param connected whether the command connection is up now
     */
    public AnswerWatch(LongSupplier nanoTime, Duration commandTimeout, BooleanSupplier connected) {
        this.nanoTime = nanoTime;
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.connected = connected;
    }

    /** A command is about to be sent. */
    public void sending() {
        if (owedSince == NOTHING_OWED) {
            owedSince = nanoTime.getAsLong();
        }
    }

    /**
     * A command ended: with an answer (a reply, an error reply) unless {@code error} says Redis is unavailable
     * ({@link Errors#isUnavailable}: a timeout, a dropped connection, a server loading or read-only).
     */
    public void ended(Throwable error) {
        if ((error == null || !Errors.isUnavailable(error)) && owedSince != NOTHING_OWED) {
            owedSince = NOTHING_OWED;
        }
    }

    /** @return whether Redis is unavailable now: the connection down, or silent for a command timeout */
    public boolean unavailable() {
        long since = owedSince;
        return !connected.getAsBoolean()
                || since != NOTHING_OWED && nanoTime.getAsLong() - since >= commandTimeoutNanos;
    }
}
