package io.dlock.internal.semaphore;

import io.dlock.Permit;
import io.dlock.internal.lease.LeaseEnds;

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
 * twice in Redis gives it back at most once: the script's ZREM decides). A second {@link #release()} once a release
 * was sent throws {@link IllegalStateException} (the API's rule, see {@link Permit}); {@link #close()} then does
 * nothing. A permit with a fixed lease may have it set again while {@code HELD} ({@link #extendLease}); a
 * watchdog-renewed one may not.
 *
 * <p>Validity: counted on the monotonic clock from when the acquiring (or renewing) request was sent, plus the lease,
 * minus 1% of it and 2 ms; a request is never sent later than Redis sets the expiry, so the client's view never runs
 * past the server's unless the clocks' rates drift apart by more than the margin. Thread-safety: state is guarded by
 * {@code this}; no lock is held across a Redis call.
 */
final class LeasedPermit implements Permit, LeaseEnds.FixedLease {
    enum State { HELD, RELEASING, RELEASED, LOST, RELEASE_FAILED }

    private final RedisLeasedSemaphore semaphore;
    private final String id;
    /** The lease in ms; the watchdog timeout for a renewed permit; changed by {@link #extended}. */
    private volatile long leaseMs;
    private final boolean watchdog;
    private final long ownerThreadId;
    private State state = State.HELD;
    private long validUntilNanos;
    private boolean lastRenewalFailed;
    /** When the extension whose validity counts now was sent ({@link Long#MIN_VALUE}: none yet). */
    private long lastExtensionSentAtNanos = Long.MIN_VALUE;

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

    /** @return its semaphore's channel, which names the semaphore among this client's {@link LocalPermits} */
    String channel() {
        return semaphore.keys().channel();
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
    @Override
    public synchronized long validForNanos(long nowNanos) {
        return state == State.HELD ? validUntilNanos - nowNanos : 0;
    }

    /** Held with a lease of its own (not the watchdog's). */
    @Override
    public synchronized boolean fixedLeaseRunning() {
        return state == State.HELD && !watchdog;
    }

    synchronized boolean isHeld() {
        return state == State.HELD;
    }

    synchronized boolean isLost() {
        return state == State.LOST;
    }

    /**
     * Checks that {@link #extendLease} may be sent: a fixed lease, and no release sent.
     *
     * @throws IllegalStateException otherwise
     */
    synchronized void checkExtendable() {
        if (watchdog) {
            throw new IllegalStateException("semaphore '" + semaphoreName() + "': permit " + id
                    + " is renewed by the watchdog, so its lease cannot be extended (take it with a lease for that)");
        }
        if (state == State.RELEASING || state == State.RELEASED || state == State.RELEASE_FAILED) {
            throw new IllegalStateException("semaphore '" + semaphoreName() + "': permit " + id
                    + " was released, so its lease cannot be extended");
        }
    }

    /**
     * An extension sent at {@code sentAtNanos} set the lease to {@code newLeaseMs} from the time Redis ran it. The
     * validity becomes that of the extension sent last (it may be shorter than before: Redis's expiry was replaced).
     *
     * @return whether the permit is still held (else the extension came too late for the client's records)
     */
    synchronized boolean extended(long sentAtNanos, long newLeaseMs) {
        if (state != State.HELD) {
            return false;
        }
        if (sentAtNanos >= lastExtensionSentAtNanos) {
            lastExtensionSentAtNanos = sentAtNanos;
            leaseMs = newLeaseMs;
            validUntilNanos = validUntil(sentAtNanos, newLeaseMs);
        }
        return true;
    }

    synchronized boolean lastRenewalFailed() {
        return lastRenewalFailed;
    }

    /**
     * A check sent at {@code sentAtNanos} read the permit's lease back: Redis keeps it at most {@code leftMs} from then
     * (another client may have shortened it: Redisson's {@code updateLeaseTime}). The validity becomes the sooner of
     * what it was and that, never later; an extension sent after the check is answered after it (one connection
     * answers in order) and sets its own.
     */
    synchronized void keptAtMost(long sentAtNanos, long leftMs) {
        // a lease left at least as long as the permit's own runs past the validity counted from an earlier send (and
        // Redisson's "no lease" score would overflow the nanoseconds)
        if (state == State.HELD && leftMs < leaseMs && sentAtNanos >= lastExtensionSentAtNanos) {
            validUntilNanos = Math.min(validUntilNanos, validUntil(sentAtNanos, leftMs));
        }
    }

    /** A renewal sent at {@code sentAtNanos} found the permit live and set its lease again. */
    synchronized void renewed(long sentAtNanos) {
        if (state == State.HELD && watchdog) {
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

    /**
     * A release of this permit's id through the semaphore ({@code release(id)}, a list of ids) is being sent by this
     * client: while it is on its way the permit is {@code RELEASING} (not renewed, no loss reported).
     *
     * @return whether it was {@code HELD} (else it is left as it is, and the release by id does not concern it)
     */
    synchronized boolean releaseByIdStarting() {
        if (state != State.HELD) {
            return false;
        }
        state = State.RELEASING;
        return true;
    }

    /**
     * The release by id begun by {@link #releaseByIdStarting} ended: {@code RELEASED} when it gave the permit back,
     * {@code RELEASE_FAILED} when Redis failed, {@code HELD} again when it left the permit in place (a list refused).
     */
    synchronized void releaseByIdEnded(State after) {
        if (state == State.RELEASING) {
            state = after;
        }
    }

    /** @return whether a release should be sent by {@link #close()} (none started or done yet) */
    synchronized boolean needsRelease() {
        return state == State.HELD || state == State.LOST || state == State.RELEASE_FAILED;
    }

    synchronized void releaseEnded(boolean done) {
        state = done ? State.RELEASED : State.RELEASE_FAILED;
    }

    @Override
    public boolean extendLease(Duration leaseTime) {
        return semaphore.services().sync(semaphore.extendHeld(this, leaseTime), RedisLeasedSemaphore.KIND,
                semaphoreName(), "extendLease");
    }

    @Override
    public CompletableFuture<Boolean> extendLeaseAsync(Duration leaseTime) {
        CompletableFuture<Boolean> reply;
        try {
            reply = semaphore.extendHeld(this, leaseTime);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return semaphore.services().async(reply, RedisLeasedSemaphore.KIND, semaphoreName(), "extendLease");
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
