package io.dlock.internal.lock;

/** An acquire script's reply as a kind reads it ({@link LockProtocol#readAcquire}). */
sealed interface AcquireReply {
    /** An acquire script's answer when the hold it would re-enter is gone from Redis (fragment {@code hold_gone}). */
    long HOLD_GONE = -4;

    /** Granted; {@code fencingToken} is the new hold's token, or null (no token, or a re-entry). */
    record Granted(Long fencingToken) implements AcquireReply {
    }

    /** The hold the attempt would re-enter is gone from Redis: nothing was acquired. */
    record HoldGone() implements AcquireReply {
    }

    /** Refused: sleep at most {@code sleepMs} before the next attempt (negative: unknown). */
    record Busy(long sleepMs) implements AcquireReply {
    }

    Granted GRANTED = new Granted(null);
    HoldGone GONE = new HoldGone();

    /** Reads the common integer reply: nil = granted, {@link #HOLD_GONE}, else the lock's PTTL. */
    static AcquireReply ofInteger(Long reply) {
        return reply == null ? GRANTED : reply == HOLD_GONE ? GONE : new Busy(reply);
    }
}
