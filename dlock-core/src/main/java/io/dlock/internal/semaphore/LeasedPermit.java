package io.dlock.internal.semaphore;

import io.dlock.Permit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A leased permit this client holds: its id, lease, and what the client knows of its validity.
 *
 * <h2>States</h2>
 * {@code HELD} (granted; the watchdog renews it if it has no fixed lease, and checks its lease) → {@code RELEASING}
 * (a release was sent; renewals that find it gone are no loss) → {@code RELEASED}. From {@code HELD} it may become
 * {@code LOST} (its lease ran out or Redis no longer has it; reported once), which a release still ends in
 * {@code RELEASED}. A release that failed leaves {@code RELEASE_FAILED}, which may be released again (releasing an id
 * twice in Redis gives it back at most once: the script's ZREM decides).
 *
 * <p>Validity: counted on the monotonic clock from when the acquiring (or renewing) request was sent, plus the lease,
 * minus 1% of it and 2 ms; a request is never sent later than Redis sets the expiry, so the client's view never runs
 * past the server's unless the clocks' rates drift apart by more than the margin. Thread-safety: state is guarded by
 * {@code this}; no lock is held across a Redis call.
 */
final class LeasedPermit implements Permit {
    enum State { HELD, RELEASING, RELEASED, LOST, RELEASE_FAILED }

    private final RedisLeasedSemaphore semaphore;
    private final String id;
    /** The lease in ms; the watchdog timeout for a renewed permit. */
    private final long leaseMs;
    private final boolean watchdog;
    private final long ownerThreadId;
    private State state = State.HELD;
    private long validUntilNanos;
    private boolean lastRenewalFailed;

    LeasedPermit(RedisLeasedSemaphore semaphore, String id, long leaseMs, boolean watchdog, long ownerThreadId,
                 long sentAtNanos) {
        this.semaphore = semaphore;
        this.id = id;
        this.leaseMs = leaseMs;
        this.watchdog = watchdog;
        this.ownerThreadId = ownerThreadId;
        this.validUntilNanos = validUntil(sentAtNanos, leaseMs);
    }

    private static long validUntil(long sentAtNanos, long leaseMs) {
        long marginMs = leaseMs / 100 + 2;
        return sentAtNanos + Math.max(0, leaseMs - marginMs) * 1_000_000L;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String semaphoreName() {
        return semaphore.getName();
    }

    @Override
    public boolean isWatchdogRenewed() {
        return watchdog;
    }

    long leaseMs() {
        return leaseMs;
    }

    long ownerThreadId() {
        return ownerThreadId;
    }

    SemaphoreKeys keys() {
        return semaphore.keys();
    }

    @Override
    public Duration leaseValidFor() {
        long left;
        synchronized (this) {
            if (state != State.HELD) {
                return Duration.ZERO;
            }
            left = validUntilNanos - semaphore.nanoTime();
        }
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** @return nanoseconds of known validity left at {@code nowNanos}, if held; else 0 */
    synchronized long validForNanos(long nowNanos) {
        return state == State.HELD ? validUntilNanos - nowNanos : 0;
    }

    synchronized boolean isHeld() {
        return state == State.HELD;
    }

    synchronized boolean lastRenewalFailed() {
        return lastRenewalFailed;
    }

    /** A renewal sent at {@code sentAtNanos} found the permit live and set its lease again. */
    synchronized void renewed(long sentAtNanos) {
        if (state == State.HELD) {
            lastRenewalFailed = false;
            validUntilNanos = Math.max(validUntilNanos, validUntil(sentAtNanos, leaseMs));
        }
    }

    synchronized void renewalFailed() {
        lastRenewalFailed = true;
    }

    /** @return whether the permit was held and is now lost (the caller reports it, once) */
    synchronized boolean lose() {
        if (state != State.HELD) {
            return false;
        }
        state = State.LOST;
        return true;
    }

    /**
     * Starts a release: stops renewal and checks it is the first.
     *
     * @return whether the permit was held until now (not lost, no release tried before): the one end of its hold
     *
     * @throws IllegalStateException when released already or a release is under way
     */
    synchronized boolean releaseStarting() {
        if (state == State.RELEASING || state == State.RELEASED) {
            throw new IllegalStateException("semaphore '" + semaphoreName() + "': permit " + id
                    + " was released already");
        }
        boolean wasHeld = state == State.HELD;
        state = State.RELEASING;
        return wasHeld;
    }

    /** @return whether a release should be sent by {@link #close()} (none started or done yet) */
    synchronized boolean needsRelease() {
        return state == State.HELD || state == State.LOST || state == State.RELEASE_FAILED;
    }

    synchronized void releaseEnded(boolean done) {
        state = done ? State.RELEASED : State.RELEASE_FAILED;
    }

    @Override
    public boolean release() {
        return semaphore.services().sync(semaphore.releaseHeld(this), RedisLeasedSemaphore.KIND, semaphoreName(),
                "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync() {
        CompletableFuture<Boolean> reply;
        try {
            reply = semaphore.releaseHeld(this);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return semaphore.services().async(reply, RedisLeasedSemaphore.KIND, semaphoreName(), "release");
    }

    @Override
    public void close() {
        if (needsRelease()) {
            try {
                release();
            } catch (IllegalStateException e) {
                // released concurrently by another thread: nothing left to do
            }
        }
    }

    @Override
    public String toString() {
        return "Permit{" + semaphoreName() + ", " + id + (watchdog ? ", watchdog" : ", lease " + leaseMs + " ms")
                + "}";
    }
}
