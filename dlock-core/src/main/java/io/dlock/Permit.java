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
 * <p><b>Released once.</b> The permit is given back at most once: the first {@link #release()} (or {@link #close()})
 * gives it back. A second {@link #release()} of the handle throws {@link IllegalStateException} and sends nothing: it
 * is a bug in the caller (a double release is what over-fills a semaphore without ids), and it is reported as
 * {@code Lock.unlock()} reports an unlock of a lock not held, and as Redisson's {@code release(id)} reports an id
 * released already ({@code IllegalArgumentException} there: the id is its argument; here the handle's own state is
 * wrong). {@link #close()} after a release does nothing, so try-with-resources around an explicit release is safe;
 * to give back an id that may be gone, use {@link LeasedSemaphore#tryRelease(String)}.
 *
 * <p>Thread-safe; may be released on any thread.
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
     * <p>A change that another client makes (Redisson's {@code updateLeaseTime} on this id, a release of it, a
     * restart without persistence) is seen at the latest at the client's next watchdog round, every third of the
     * watchdog timeout, and not before: the round reads a fixed lease back (no longer counted past it from then on; a
     * longer one is not adopted), and renews a watchdog permit, which sets its lease back to the watchdog timeout (so
     * a foreign shortening lasts until then). A permit found gone reads {@link Duration#ZERO} from then on, and the
     * client's {@link LeaseLostListener}s are told.
     *
     * @return the time left; {@link Duration#ZERO} once released, lost or expired
     */
    Duration leaseValidFor();

    /**
     * Sets the permit's lease to end {@code leaseTime} from now, by the Redis server's clock (Redisson's
     * {@code updateLeaseTime}): longer or shorter than what was left. Only a permit taken with a fixed lease can be
     * extended; its {@link #leaseValidFor()} follows.
     *
     * <p>A watchdog-renewed permit is refused: its lease belongs to the client's watchdog, which would overwrite any
     * other expiry at its next renewal, and turning it into a fixed lease cannot be ordered after a renewal already on
     * its way to Redis, which would then lengthen the lease behind the caller's back. Take the permit with a lease
     * when its end matters.
     *
     * @param leaseTime the new lease from now, from one millisecond to {@link DistributedLock#MAX_LEASE}
     * @return true when the permit was held and its lease now ends {@code leaseTime} from now; false when it was not
     *         held any more (its lease had ended, or its id was released by someone else, or the client reported it
     *         lost): nothing is extended, an ended lease is never brought back
     * @throws IllegalStateException    when the permit is renewed by the watchdog, or was released (or a release of it
     *                                  was sent); nothing is sent
     * @throws IllegalArgumentException when {@code leaseTime} is out of bounds
     * @throws LockException            when Redis fails: the lease may or may not have been changed
     */
    @Blocking
    boolean extendLease(Duration leaseTime);

    /** Async {@link #extendLease(Duration)}. */
    CompletableFuture<Boolean> extendLeaseAsync(Duration leaseTime);

    /**
     * Gives the permit back and stops renewing it.
     *
     * @return true when the permit was still held when it was given back; false when its lease had ended, or another
     *         client had released its id, before (the permit went back to the count then, or now), or the client had
     *         reported it lost (a fixed lease is reported lost when its {@link #leaseValidFor()} ends, which may be
     *         a few ms before Redis lets it go: the release still gives it back at once)
     * @throws IllegalStateException when this handle was released already, or a release of it is under way (nothing
     *                               is sent); see the class comment
     * @throws LockException         when Redis fails: the permit may or may not have been given back; it is no longer
     *                               renewed, so it comes back after its current lease at the latest
     */
    @Blocking
    boolean release();

    /** Async {@link #release()}: a second release completes exceptionally with {@link IllegalStateException}. */
    CompletableFuture<Boolean> releaseAsync();

    /**
     * Releases the permit unless it was released already (then it does nothing, whichever thread released it); blocks
     * for at most about the command timeout.
     *
     * @throws LockException when Redis fails (see {@link #release()})
     */
    @Override
    void close();
}
