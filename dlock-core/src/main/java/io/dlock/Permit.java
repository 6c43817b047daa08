package io.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One permit of a {@link LeasedSemaphore}, held by this client until released or lost.
 *
 * <pre>{@code
 * try (Permit permit = semaphore.acquire()) {
 *     callTheRateLimitedService();
 * }
 * }</pre>
 *
 * <p>The permit is given back at most once: the first {@link #release()} (or {@link #close()}) gives it back, later
 * ones do nothing. Thread-safe; may be released on any thread.
 */
public interface Permit extends AutoCloseable {

    /** @return the permit's id: 32 lower-case hex digits, also how Redisson names it ({@link LeasedSemaphore#release(String)}) */
    String id();

    /** @return the name of the semaphore the permit belongs to */
    String semaphoreName();

    /** @return whether the client's watchdog renews this permit (it was taken without a lease) */
    boolean isWatchdogRenewed();

    /**
     * How much longer the permit is known to be held, from the client's own records (no round trip, never blocks):
     * counted on the monotonic clock from when the acquiring or last renewing request was sent, plus the lease,
     * minus a small margin, so it never runs past the expiry Redis judges by its own clock unless the two clocks
     * drift apart by more than the margin.
     *
     * @return the time left; {@link Duration#ZERO} once released, lost or expired
     */
    Duration leaseValidFor();

    /**
     * Gives the permit back and stops renewing it.
     *
     * @return true when the permit was still held when it was given back; false when its lease had ended, or another
     *         client had released its id, before (the permit went back to the count then, or now)
     * @throws IllegalStateException when this permit was released already (nothing is sent)
     * @throws LockException         when Redis fails: the permit may or may not have been given back; it is no longer
     *                               renewed, so it comes back after its current lease at the latest
     */
    @Blocking
    boolean release();

    /** Async {@link #release()}. */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Releases the permit unless it was released already; blocks for at most about the command timeout.
     *
     * @throws LockException when Redis fails (see {@link #release()})
     */
    @Override
    void close();
}
