package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;

import java.util.function.LongSupplier;

/**
 * Which owner of this client holds one lock as far as the client knows (Redis granted it, it has not let go), with its
 * {@link Hold} and how many hand-offs in a row led to it. A holder whose hold is no longer valid counts as none and is
 * forgotten when looked at.
 *
 * <p>Not thread-safe: guarded by the owning {@link LocalCohort}'s monitor.
 */
final class LocalHolder {
    private static final long NONE = Long.MIN_VALUE;

    private final LongSupplier nanoTime;
    private long owner = NONE;
    private Hold hold;
    private int handoffsInARow;

    LocalHolder(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** @return whether a holder is known and its hold still valid (an expired one is forgotten) */
    boolean live() {
        if (owner == NONE) {
            return false;
        }
        if (hold.validForNanos(nanoTime.getAsLong()) > 0) {
            return true;
        }
        forget();
        return false;
    }

    boolean is(long ownerId) {
        return owner != NONE && owner == ownerId;
    }

    /** @return the holder's hold, or null without holder */
    Hold hold() {
        return hold;
    }

    int handoffsInARow() {
        return handoffsInARow;
    }

    /** Redis granted {@code ownerId} the lock: a new holder starts a new streak, a re-entry keeps it. */
    void granted(long ownerId, Hold grant) {
        if (owner != ownerId) {
            handoffsInARow = 0;
        }
        owner = ownerId;
        hold = grant;
    }

    /** A hand-off moved the lock to {@code ownerId}: the streak grows by one. */
    void handedTo(long ownerId, Hold grant) {
        owner = ownerId;
        hold = grant;
        handoffsInARow++;
    }

    void forget() {
        owner = NONE;
        hold = null;
        handoffsInARow = 0;
    }

    @Override
    public String toString() {
        return (owner == NONE ? "none" : Long.toString(owner)) + " streak=" + handoffsInARow;
    }
}
