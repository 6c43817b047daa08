package io.dlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DistributedLock} whose every acquisition (not re-entry) takes a <em>fencing token</em>: a {@code long}
 * that strictly increases for the lock name. Pass the token along with every write to the protected resource and have
 * the resource reject a write whose token is lower than the highest it has accepted; a holder that lost its lease
 * without noticing (a long GC pause, a frozen VM, a network partition) is then stopped by the resource, not just by
 * its own checks ({@link #leaseValidFor()}, {@link LeaseLostListener}).
 *
 * <p>Otherwise this is the reentrant lock of {@link LockClient#getLock(String)}: same Redis hash, same fields, same
 * channel, so it excludes and is excluded by plain dlock locks and by Redisson's {@code RLock} and
 * {@code RFencedLock} on the same name, and its release wakes their waiters (and theirs wake it).
 *
 * <h2>The guarantee</h2>
 * A token issued by {@code getFencedLock(name)} is greater than every token issued before it for {@code name}, by any
 * dlock client or Redisson 4.x {@code RFencedLock} using the same Redis, also
 * <ul>
 *   <li>across restarts of the clients (nothing is kept in the client), and</li>
 *   <li>across the loss of the counter: a Redis restart without persistence, {@code FLUSHALL}, or Redisson's
 *       {@code delete()},</li>
 * </ul>
 * as long as (1) the Redis server's clock does not step back, including across its restarts, and (2) tokens are
 * issued for the name at less than one per microsecond on average (each one is a script call that takes Redis several
 * microseconds, so a single Redis cannot go faster). <b>How:</b> the tokens live in {@code redisson_lock_token:{name}}
 * (a plain counter without expiry, shared with Redisson, never deleted by dlock); the acquire script, in the same
 * atomic step that takes the lock, sets it to {@code max(counter + 1, Redis TIME in microseconds since the epoch)} and
 * returns that. Hence each token is above the counter, and never above the server's clock while the rate stays below
 * one per microsecond; after the counter is lost, the next token starts from the clock again, which has moved on past
 * every earlier token. Redisson's {@code INCR} carries on from dlock's values, so mixed use stays monotonic (but a
 * Redisson acquisition right after the counter was lost starts again at 1: only dlock's tokens carry the guarantee).
 * Not covered: a failover to a replica that missed the last tokens, when the new master's clock is behind the old
 * one's by more than the failover took; a counter set by hand.
 *
 * <h2>Which token you get</h2>
 * A re-entry keeps the hold's token, and every lock object of this client returns the same one for the same owner.
 * An acquisition whose reply was lost (a command timeout) may still have taken the lock in Redis; the owner's next
 * acquisition then adopts that hold with a new token instead of counting a re-entry on it.
 *
 * <p>Thread-safety, errors and waiting are as for {@link DistributedLock}; in particular a Redis failure is a
 * {@link LockException}. The token methods act for the calling thread, or on a view of {@link #as(LockOwner)} for
 * its owner (whose hold may be taken and its token read on different threads); they have async twins.
 */
public interface FencedLock extends DistributedLock {

    /** As {@link DistributedLock#as(LockOwner)}: a view for {@code owner}, whose tokens are that owner's. */
    @Override
    FencedLock as(LockOwner owner);

    /**
     * As {@link #lock()} (watchdog lease, blocks until held), returning the hold's token.
     *
     * @throws LockException as {@link #lock()}, or when the hold was lost again before the call could return
     */
    @Blocking
    long lockAndGetToken();

    /**
     * As {@link #lock(long, TimeUnit)}, returning the hold's token. The lease is honoured: the hold expires after
     * {@code leaseTime} unless released first, and is not renewed ({@link #LEASE_WATCHDOG} for a watchdog lease).
     * (Redisson's {@code RFencedLock} ignores the lease here.)
     */
    @Blocking
    long lockAndGetToken(long leaseTime, TimeUnit unit);

    /**
     * One attempt, never waiting for another holder (one round trip), with a watchdog lease; as {@link #tryLock()}.
     *
     * @return the token, or null when the lock is held by somebody else
     */
    @Blocking
    Long tryLockAndGetToken();

    /**
     * As {@link #tryLock(long, long, TimeUnit)}.
     *
     * @return the token, or null when the lock was not acquired within {@code waitTime} (also for a slow answer from
     *         a healthy Redis, as {@link #tryLock(long, long, TimeUnit)}: a late grant is given back)
     * @throws LockException when Redis is unavailable or fails, as {@link #tryLock(long, long, TimeUnit)}
     */
    @Blocking
    Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * The token of the current thread's (on a view: its owner's) hold, without a round trip.
     *
     * @return the token, or null when the current thread holds nothing, or its hold was found lost or is no longer
     * known valid ({@link #leaseValidFor()} is zero): a null here means "do not write". This nullable form mirrors
     * Redisson's {@code RFencedLock.getToken()}; {@link #requireToken()} is the primitive form that cannot be unboxed
     * by accident.
     */
    Long getToken();

    /**
     * The token of the current thread's (on a view: its owner's) hold, without a round trip; the form to pass to the
     * storage that checks tokens, since there is no null to unbox by mistake. Never blocks; thread-safe.
     *
     * @return the token of the owner's hold, while that hold is known valid ({@link #leaseValidFor()} positive)
     * @throws IllegalMonitorStateException when the owner holds nothing, or its hold was found lost or is no longer
     *                                      known valid (the message names the lock): do not write then
     */
    long requireToken();

    // ---- asynchronous twins (see Blocking): never block, complete on the client's executor ----

    /**
     * Async {@link #lockAndGetToken()} for the current thread: completes with the token once held. Cancelling the
     * future abandons the wait; if the lock was acquired at that moment it is released again.
     */
    CompletableFuture<Long> lockAndGetTokenAsync();

    /**
     * Async {@link #lockAndGetToken(long, TimeUnit)} for the current thread; cancelling as
     * {@link #lockAndGetTokenAsync()}.
     */
    CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit);

    /** Async {@link #tryLockAndGetToken()} for the current thread: completes with the token, or null when busy. */
    CompletableFuture<Long> tryLockAndGetTokenAsync();

    /**
     * Async {@link #tryLockAndGetToken(long, long, TimeUnit)} for the current thread: completes with the token, or
     * null when not acquired within {@code waitTime} (a slow answer included), exceptionally with a
     * {@link LockException} when Redis is unavailable; cancelling as {@link #lockAndGetTokenAsync()}.
     */
    CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit);
}
