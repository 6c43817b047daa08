package io.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A count-down latch shared by every JVM that talks to the same Redis, wire-compatible with Redisson's
 * {@code RCountDownLatch}: a coordinator sets a count, participants count it down, and awaiters are released when it
 * reaches zero. Unlike {@link java.util.concurrent.CountDownLatch} it is reusable: once open, it may be set again.
 *
 * <p><b>State.</b> The latch is one Redis string, its name, holding the remaining count. No key means the latch is
 * <em>open</em> (count 0): never set, counted down to zero, {@link #delete() deleted} or expired. So, as with Redisson,
 * {@link #await()} before {@link #trySetCount(long)} returns at once: set the count before the participants start.
 *
 * <p><b>Expiry (dlock only).</b> {@link #trySetCount(long, Duration)} gives the latch a time to live, so that a latch
 * whose participants died does not live for ever. When it runs out before the count reaches zero, the key is gone and
 * the latch is <em>open</em>, for everybody: {@link #getCount()} is 0, dlock's awaiters return as from a count-down to
 * zero ({@code await(timeout)} returns {@code true}) within a few milliseconds (they sleep no longer than the latch's
 * remaining time to live), and the first dlock awaiter that notices publishes the zero message for the dead
 * participants, which wakes Redisson's awaiters too (they read count 0 and return). Only Redisson awaiters with no
 * dlock awaiter on the name stay parked until their own timeout. An expiry thus means "stop waiting", not "the work is
 * done": pick a TTL well beyond the batch's expected length, and have awaiters check the work's results if they must
 * tell the two apart.
 *
 * <p><b>Data loss (dlock only).</b> A latch whose key Redis lost — a restart without persistence, or a failover to a
 * replica that did not have it — would also read as open. An awaiter tells the two apart by the server's run id
 * ({@code INFO server}, drawn anew at every start): when the key is gone on another run of the server (another node
 * after a failover) than the last one on which the awaiter knew the latch — where it read the latch closed, or,
 * before such a read, where it began waiting — it fails with {@link LockLostException} naming the latch ("Redis lost
 * the latch's count") instead of returning, and dlock publishes no opening for it. A failover whose new master has the key is no loss, and an opening whose zero message
 * the client heard is an opening on whichever server. A latch that really reached zero just before the restart or
 * failover, its message unheard (the subscription was down), is reported lost too (the two cannot be told apart). What reads Redis afterwards reads what it holds: {@link #getCount()} 0, {@link #remainTimeToLive()} -2, and an
 * await that begins on the new run returns at once. A user whose ACL denies {@code INFO} gets no such check. See
 * {@code docs/protocol.md} §11.3.
 *
 * <p><b>Waiting.</b> Awaiters do not poll: they subscribe to the latch's pub/sub channel and check the count again on
 * every message, after a reconnect, and at least every {@code watchdogTimeout / 3} (10 s by default) or when the
 * latch's TTL runs out, whichever is sooner, so a lost message delays a wake-up by at most that long and never hangs
 * it. A waiting awaiter holds no thread in the async forms.
 *
 * <p><b>An opening closed again at once (dlock differs on purpose).</b> On a standalone server, the zero message
 * itself releases the awaiters that provably waited through the opening (it was published after they joined), with
 * no check: they return even when a new {@link #trySetCount(long)} closed the latch again before they could read it,
 * as {@link java.util.concurrent.CountDownLatch}'s awaiters return once the count reached zero. Redisson's awaiters,
 * and dlock's on a Cluster or under Sentinel (where the message's path does not prove that order), check the count on
 * the message, read the new one, and keep waiting for it. See {@code docs/protocol.md} §11.3.
 *
 * <p><b>Cluster.</b> Every name works on a Redis Cluster, hash-tagged ones ({@code {batch}:done}) included. (Redisson
 * fails there with {@code CROSSSLOT} for such names, because its channel hashes to another slot; dlock then publishes
 * with {@code PUBLISH}, which needs no slot.)
 *
 * <p><b>Thread-safety.</b> Instances are immutable, thread-safe and cheap; any number may exist for one name.
 *
 * <p><b>Errors.</b> Methods throw {@link NullPointerException} or {@link IllegalArgumentException} for bad arguments
 * (the message names the parameter and the latch), and {@link LockException} when Redis fails or does not answer
 * within the command timeout, when the client is closed, or when the latch's key holds something that is not a latch
 * count ({@link NotALockException}: another type, or a string that is no integer; the message names the latch and the
 * key's type, and nothing is changed). A timed await returns by its deadline plus 20 ms even while Redis is silent,
 * by the locks' rule (<a href="DistributedLock.html#slow-answer">a slow answer is a "no"</a>): {@code false} when a
 * check had found the latch closed, or when its check is unanswered while Redis is healthy; a {@link LockException}
 * only when Redis is unavailable (connection down, or no answer for a command timeout). Async methods never throw
 * for Redis failures; their futures fail with the same exceptions, and complete on the client's executor.
 */
public interface DistributedCountDownLatch {

    /** The longest time to live of {@link #trySetCount(long, Duration)}: {@link DistributedLock#MAX_LEASE}. */
    Duration MAX_TTL = DistributedLock.MAX_LEASE;

    /**
     * The largest count {@link #trySetCount(long)} accepts: 2<sup>53</sup> (9,007,199,254,740,992), the largest that
     * the scripts' numbers (Lua doubles) hold exactly. A larger count already in Redis (Redisson takes any
     * {@code long}) is read exactly all the same: {@link #getCount()} returns it as stored, and the latch is closed.
     */
    long MAX_COUNT = 1L << 53;

    /** @return the latch's name, which is also its Redis key. Never blocks. */
    String getName();

    /**
     * Sets the count if the latch is open (no count in Redis), without a time to live, and wakes nobody (awaiters of
     * an open latch have returned already). One atomic script; blocks for one round trip.
     *
     * @param count the count, at least 1 and at most {@link #MAX_COUNT}
     * @return whether the count was set ({@code false}: the latch is closed already; nothing changed)
     * @throws IllegalArgumentException when {@code count} is below 1 or above {@link #MAX_COUNT} (nothing is sent)
     */
    @Blocking
    boolean trySetCount(long count);

    /**
     * As {@link #trySetCount(long)}, and the latch expires {@code ttl} from now unless counted down to zero first;
     * see the class comment for what awaiters see then. Counting down keeps the TTL.
     *
     * @param count the count, at least 1 and at most {@link #MAX_COUNT}
     * @param ttl   the time to live, at least 1 ms and at most {@link #MAX_TTL}
     * @throws IllegalArgumentException when {@code count} or {@code ttl} is out of range (nothing is sent: nothing
     *                                  written, nothing published)
     * @throws NullPointerException     when {@code ttl} is null
     */
    @Blocking
    boolean trySetCount(long count, Duration ttl);

    /**
     * Counts down by one; the call that brings the count to zero opens the latch and wakes every awaiter, dlock's and
     * Redisson's. On an open latch it does nothing. One atomic script; blocks for one round trip. Not retried: after
     * a {@link LockException} the count-down may or may not have happened.
     */
    @Blocking
    void countDown();

    /**
     * @return the remaining count as stored, 0 when the latch is open (one round trip); 0 also when Redis lost the key
     *         (a restart without persistence): only an awaiter that read the latch closed can tell
     */
    @Blocking
    long getCount();

    /**
     * @return the latch's remaining time to live in milliseconds, {@link DistributedLock#TTL_NOT_LOCKED} (-2) when the
     *         latch is open, {@link DistributedLock#TTL_NO_EXPIRY} (-1) when it has no expiry (one round trip)
     */
    @Blocking
    long remainTimeToLive();

    /**
     * Waits until the latch is open, without a time limit. While Redis is unavailable it keeps checking, with a pause
     * growing up to 2 s between attempts, until Redis answers again or the client closes.
     *
     * @throws InterruptedException if interrupted while waiting (nothing is left behind: the subscription is dropped)
     * @throws LockLostException    when Redis lost the latch during this await (see the class comment)
     * @throws LockException        when the key is not a latch, or the client closes while waiting
     */
    @Blocking
    void await() throws InterruptedException;

    /**
     * Waits at most {@code timeout} for the latch to open.
     *
     * @param timeout how long to wait; 0 (or less) means one check
     * @param unit    the unit of {@code timeout}; a timeout longer than {@link #MAX_TTL} means no limit
     * @return {@code true} when the latch is open, {@code false} when the time ran out first (also when the last check
     *         was still unanswered while Redis is healthy: a slow answer is a "no")
     * @throws InterruptedException if interrupted while waiting
     * @throws LockLostException    when Redis lost the latch during this await (see the class comment)
     * @throws LockException        when Redis fails, or is unavailable at the deadline (connection down, or no answer
     *                              for a command timeout; a timed wait is not retried)
     */
    @Blocking
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * {@link #await(long, TimeUnit)} with a {@link Duration}; a negative one counts as 0 (one check), one longer than
     * {@link #MAX_TTL} ({@code ChronoUnit.FOREVER} included) as no limit, the rule of the locks' waits.
     *
     * @throws NullPointerException when {@code timeout} is null
     */
    @Blocking
    default boolean await(Duration timeout) throws InterruptedException {
        return await(Durations.toMillis(waitOrZero(timeout), "timeout"), TimeUnit.MILLISECONDS);
    }

    /**
     * Deletes the count, which opens the latch: every awaiter, dlock's and Redisson's, wakes and returns. (Redisson's
     * own {@code delete()} publishes its "new count" message instead and leaves its awaiters asleep.) One round trip.
     *
     * @return whether there was a count to delete
     */
    @Blocking
    boolean delete();

    /** Async {@link #trySetCount(long)}; argument errors are thrown, not put in the future. */
    CompletableFuture<Boolean> trySetCountAsync(long count);

    /** Async {@link #trySetCount(long, Duration)}; argument errors are thrown, not put in the future. */
    CompletableFuture<Boolean> trySetCountAsync(long count, Duration ttl);

    /** Async {@link #countDown()}. */
    CompletableFuture<Void> countDownAsync();

    /** Async {@link #getCount()}. */
    CompletableFuture<Long> getCountAsync();

    /** Async {@link #remainTimeToLive()}. */
    CompletableFuture<Long> remainTimeToLiveAsync();

    /**
     * Async {@link #await()}: completes when the latch is open; holds no thread while waiting. Cancelling the future
     * ends the wait and drops its subscription.
     */
    CompletableFuture<Void> awaitAsync();

    /**
     * Async {@link #await(long, TimeUnit)}: completes with {@code true} when the latch is open, {@code false} when the
     * time ran out first (also for a slow answer), with a {@link LockException} when Redis is unavailable, as there.
     * Cancellable as {@link #awaitAsync()}.
     */
    CompletableFuture<Boolean> awaitAsync(long timeout, TimeUnit unit);

    /** Async {@link #await(Duration)}; argument errors are thrown, not put in the future. */
    default CompletableFuture<Boolean> awaitAsync(Duration timeout) {
        return awaitAsync(Durations.toMillis(waitOrZero(timeout), "timeout"), TimeUnit.MILLISECONDS);
    }

    /** @return {@code timeout}, or zero for a negative one (a latch's wait, unlike a lock's, has no -1 code) */
    private static Duration waitOrZero(Duration timeout) {
        return java.util.Objects.requireNonNull(timeout, "timeout").isNegative() ? Duration.ZERO : timeout;
    }

    /** Async {@link #delete()}. */
    CompletableFuture<Boolean> deleteAsync();
}
