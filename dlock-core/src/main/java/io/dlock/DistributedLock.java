package io.dlock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A lock shared by every JVM that talks to the same Redis, with the semantics of a
 * {@link java.util.concurrent.locks.ReentrantLock}: an owner may take it again and must release it as many times.
 *
 * <p><b>Owner.</b> A hold belongs to an <em>owner</em>: this client's {@link LockClient#getId() id} plus an
 * owner id. A lock object from the client acts for the <em>calling thread</em> (owner id
 * {@code Thread.currentThread().getId()}), in its synchronous and asynchronous methods alike. For work that hops
 * threads, {@link #as(LockOwner)} gives a view of the same lock whose every method acts for one owner instead, such as
 * a handle from {@link LockClient#newOwner()}: it may lock on one thread and unlock on another, and two handles
 * exclude each other also on one thread. The view is the one way to name an owner: the overloads taking a
 * {@code long ownerId} or {@code threadId} ({@link #lockAsync(long, TimeUnit, long)},
 * {@link #tryLockAsync(long, long, TimeUnit, long)}, {@link #unlockAsync(long)}, {@link #getHoldCountAsync(long)},
 * {@link #isHeldByThread(long)}, {@link #isHeldByThreadAsync(long)}: Redisson's forms of the same and their async
 * twins) are deprecated for removal; where Redisson takes a thread id to name the owner, dlock takes
 * {@code as(LockOwner.of(threadId))}.
 *
 * <p><b>One owner's acquisitions in order.</b> When an asynchronous acquisition is abandoned by cancelling its future,
 * it cleans up afterwards (it leaves a fair lock's queue, withdraws a read-write waiter's mark, or gives back a hold
 * that it got just as it was cancelled). A later acquisition by the same owner of the same lock (and side) starts only
 * once that cleanup is done, so the two never race; it waits at most about the command timeout for it. Besides that,
 * calls of one owner are not ordered for it: an owner should not run two acquisitions or releases of one lock at the
 * same time (as a thread cannot), and releasing a hold while its acquisition is still under way is an error.
 *
 * <p><b>Lease.</b> Every hold has a lease in Redis, so that a crashed holder never blocks others forever.
 * Acquired with {@link #LEASE_WATCHDOG} (the default), the lease is the client's
 * {@link LockClientConfig#watchdogTimeout() watchdog timeout} and is renewed every third of it while held; acquired
 * with an explicit lease, the hold simply expires when the lease ends. When a hold this client believes it has turns
 * out to be gone, the client's {@link LeaseLostListener}s are told once.
 *
 * <p><b>A re-entry never brings a lost hold back.</b> When the owner holds the lock by this client's count but Redis
 * no longer has the hold (another client's {@link #forceUnlock()}, a failover or restart that lost it, a lease that
 * ran out), another owner may have held the lock meanwhile. A re-entering acquisition ({@code lock}, {@code tryLock}
 * in every form, sync or async) then changes nothing in Redis and fails with {@link LockLostException}; the
 * listeners hear of the loss, and the owner's outer acquisitions are void (their {@code unlock()} throws
 * {@link IllegalMonitorStateException}). {@link #getHoldCount()} and {@link #isHeldByCurrentThread()} that find the
 * hold gone report the loss the same way. ({@code ReentrantLock} has nothing to lose; Redisson re-creates the hold
 * silently.)
 *
 * <p><b>Waiting.</b> A blocked acquisition does not poll: it waits for the unlock notification on the lock's pub/sub
 * channel, bounded by the lock's remaining time to live.
 *
 * <p><b>Thread-safety.</b> Instances are thread-safe and cheap; any number may exist for one name.
 *
 * <p><b>Errors.</b> Unless stated otherwise every method throws {@link NullPointerException} or
 * {@link IllegalArgumentException} for bad arguments (the message names the parameter: {@code leaseTime},
 * {@code waitTime}, {@code unit}) and {@link LockException} when Redis fails (unreachable within the
 * {@link LockClientConfig#commandTimeout() command timeout}, {@code WRONGTYPE} on the lock's key, script errors).
 * Asynchronous methods never throw for Redis failures; their futures complete exceptionally with a
 * {@link LockException} instead. All times are converted to milliseconds; a positive lease shorter than one
 * millisecond is rejected.
 *
 * <p><b>When Redis is unavailable</b> (unreachable, not answering within the command timeout, or in the middle of a
 * failover: {@code READONLY}, {@code CLUSTERDOWN}, {@code TRYAGAIN}, {@code LOADING}…), one rule decides:
 * <ul>
 *   <li><b>Acquisitions without a wait limit</b> — {@link #lock()}, {@link #lock(long, TimeUnit)},
 *       {@link #lockInterruptibly()}, {@link #lockAsync()} and their overloads, and {@code tryLock} with
 *       {@link #WAIT_FOREVER} — keep trying, with a growing pause between attempts (0.1 s doubling up to 2 s), until
 *       Redis answers again; the client logs the outage once when it starts and once when it ends. {@code lock()}
 *       is ended only by success; {@code lockInterruptibly()} also by an interrupt, which it reports within about
 *       one command timeout (an attempt in flight is awaited, then nothing is left behind); a {@code lockAsync}
 *       future also by cancelling it, and every one of them by {@link LockClient#close()}.</li>
 *   <li><b>Every other call</b> — {@code tryLock} with a wait time (even while it still has time left),
 *       {@code tryLock()}, {@code unlock}, {@code forceUnlock}, the queries and their async twins — fails with
 *       {@link LockException} within about the command timeout; nothing is retried behind the caller's back.</li>
 * </ul>
 * <p id="slow-answer"><b>A slow answer is a "no", an unavailable Redis an exception</b> (every timed wait of every
 * kind: {@code tryLock} with a wait time, the semaphores' timed {@code tryAcquire}, the latch's timed {@code await},
 * blocking, async and reactive). A timed wait returns by its deadline plus 20 ms, whether or not Redis answered its
 * last attempt. If that attempt is still unanswered while Redis is healthy — its connection up, and no command of the
 * client left without an answer for a whole command timeout — the wait answers {@code false} (empty, not opened), as
 * {@code java.util.concurrent} and Redisson do, so {@code if (lock.tryLock(wait))} needs no {@code catch} for a loaded
 * server; what the late answer grants is given back as soon as it arrives, so nothing stays held (the lost-reply
 * rule). Only when Redis is unavailable — the connection down, or no answer for a command timeout — does the wait
 * fail with {@link LockException} ("Redis did not answer in time"), so an outage is not reported as a busy lock. The
 * first command timeout of a silence cannot be told from a slow answer: a wait that ends within it answers
 * {@code false}. A wait that Redis answered before (the lock was busy) answers {@code false} in any case.
 * A failure that Redis will not get over by itself ({@code WRONGTYPE} on the lock's key, a script error) ends every
 * acquisition at once with {@link LockException}. With {@link LockClientConfig.Builder#syncReplicas(int,
 * java.time.Duration) syncReplicas}, an acquisition that too few replicas confirmed counts as unavailable (it is
 * given back first): the unlimited forms try again, the others fail with {@link LockException}.
 */
public interface DistributedLock extends Lock, DistributedLockAsync {

    /** Pass as {@code leaseTime} to get a watchdog lease: renewed while held, expiring after a crash. */
    long LEASE_WATCHDOG = -1L;

    /** Pass as {@code waitTime} to wait without a time limit. */
    long WAIT_FOREVER = -1L;

    /**
     * The longest fixed lease: 36,500 days (about 100 years). A longer {@code leaseTime} (such as
     * {@code Long.MAX_VALUE} of any unit) is refused with {@link IllegalArgumentException} before anything is sent,
     * so that no argument can leave a key without a TTL; a lock meant to last while its holder lives takes
     * {@link #LEASE_WATCHDOG}. A {@code waitTime} longer than this counts as {@link #WAIT_FOREVER}.
     */
    Duration MAX_LEASE = Duration.ofDays(36_500);

    /** {@link #remainTimeToLive()} when the lock is not held by anybody. */
    long TTL_NOT_LOCKED = -2L;

    /** {@link #remainTimeToLive()} when the lock's key exists without an expiry (never written by dlock). */
    long TTL_NO_EXPIRY = -1L;

    /** @return the lock's name, which is also its Redis key. Never blocks. */
    String getName();

    /**
     * A view of this lock whose every method acts for {@code owner} instead of the calling thread: {@code lock},
     * {@code lockInterruptibly}, {@code tryLock}, {@code unlock}, {@code extendLease} and their async twins acquire,
     * release and extend that owner's holds; {@link #isHeldByCurrentThread()}, {@link #getHoldCount()} and
     * {@link #leaseValidFor()} answer for that owner. Blocking, interrupts and errors are as documented on each
     * method; the caller's thread only decides where a sync call blocks. The methods that concern no owner
     * ({@code getName}, {@code forceUnlock}, {@code isLocked}, {@code remainTimeToLive}) and the deprecated forms with
     * an explicit {@code ownerId}/{@code threadId} act as on this lock; {@code as} on a view gives a view for the new owner.
     *
     * <p>The hold lives in Redis and in the client, not in the view: any number of views of one owner may exist, on
     * any lock object of the same name and kind, and each sees the others' holds. Holds are reentrant per owner. A
     * {@link FencedLock}'s view is a {@link FencedLock} whose tokens are the owner's. Never blocks; cheap; the view is
     * immutable and thread-safe.
     *
     * @throws NullPointerException when {@code owner} is null
     */
    DistributedLock as(LockOwner owner);

    /**
     * Acquires the lock with a watchdog lease, blocking until it is held. An interrupt does not stop the wait: the
     * thread keeps waiting and its interrupt flag is set again on return. While Redis is unavailable it keeps trying
     * (see the class comment).
     *
     * @throws LockException when Redis fails in a way that does not pass by itself ({@code WRONGTYPE}, a script
     *                       error), or the client is closed; nothing is held then
     */
    @Override
    @Blocking
    void lock();

    /**
     * Acquires the lock with the given lease, blocking until it is held. Uninterruptible as {@link #lock()}.
     *
     * @param leaseTime how long the hold lasts without renewal (at least 1 ms, at most {@link #MAX_LEASE}), or
     *                  {@link #LEASE_WATCHDOG}
     * @param unit      the unit of {@code leaseTime}
     * @throws IllegalArgumentException when {@code leaseTime} is out of that range, naming the lock
     */
    @Blocking
    void lock(long leaseTime, TimeUnit unit);

    /**
     * {@link #lock(long, TimeUnit)} with a {@link Duration} lease.
     *
     * @throws IllegalArgumentException when {@code lease} is negative, shorter than 1 ms or longer than
     *                                  {@link #MAX_LEASE} (a negative {@code Duration} never means "watchdog")
     */
    @Blocking
    default void lock(Duration lease) {
        lock(Durations.toMillis(lease, "leaseTime"), TimeUnit.MILLISECONDS);
    }

    /**
     * Acquires the lock with a watchdog lease, blocking until it is held or the thread is interrupted. While Redis is
     * unavailable it keeps trying (see the class comment).
     *
     * @throws InterruptedException if interrupted while waiting; the attempt then leaves nothing behind in Redis
     *                              (no hold, no subscription)
     */
    @Override
    @Blocking(async = "lockAsync")
    void lockInterruptibly() throws InterruptedException;

    /** As {@link #lockInterruptibly()} with the given lease ({@link #LEASE_WATCHDOG} for a watchdog lease). */
    @Blocking(async = "lockAsync")
    void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * One attempt to acquire the lock with a watchdog lease; never waits for other holders (one round trip).
     *
     * @return whether the lock is now held by the current thread (on a view of {@link #as}: by its owner)
     */
    @Override
    @Blocking
    boolean tryLock();

    /**
     * Tries to acquire the lock with a watchdog lease, waiting at most {@code waitTime}.
     *
     * @param waitTime how long to wait; {@code 0} means one attempt, {@link #WAIT_FOREVER} no limit
     * @return whether the lock is now held by the current thread; {@code false} also when the wait ended with Redis's
     *         answer still on its way while Redis is healthy (<a href="#slow-answer">a slow answer is a "no"</a>;
     *         a late grant is given back)
     * @throws InterruptedException if interrupted while waiting; nothing is left behind in Redis
     * @throws LockException        when Redis is unavailable (connection down, or no answer for a command timeout)
     *                              or fails; nothing is held then
     */
    @Override
    @Blocking
    boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException;

    /**
     * Tries to acquire the lock with the given lease, waiting at most {@code waitTime}.
     *
     * @param waitTime  how long to wait; {@code 0} means one attempt, {@link #WAIT_FOREVER} no limit
     * @param leaseTime the lease, or {@link #LEASE_WATCHDOG}
     * @return whether the lock is now held by the current thread; {@code false} also for a slow answer, as
     *         {@link #tryLock(long, TimeUnit)}
     * @throws InterruptedException if interrupted while waiting; nothing is left behind in Redis
     * @throws LockException        when Redis is unavailable or fails, as {@link #tryLock(long, TimeUnit)}
     */
    @Blocking
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * {@link #tryLock(long, TimeUnit)} with a {@link Duration}.
     *
     * @throws IllegalArgumentException when {@code wait} is negative (a negative {@code Duration} never means
     *                                  "forever")
     */
    @Blocking
    default boolean tryLock(Duration wait) throws InterruptedException {
        return tryLock(Durations.toMillis(wait, "waitTime"), TimeUnit.MILLISECONDS);
    }

    /**
     * {@link #tryLock(long, long, TimeUnit)} with {@link Duration}s.
     *
     * @throws IllegalArgumentException when either is negative, or {@code lease} is out of range as in
     *                                  {@link #lock(Duration)}
     */
    @Blocking
    default boolean tryLock(Duration wait, Duration lease) throws InterruptedException {
        return tryLock(Durations.toMillis(wait, "waitTime"), Durations.toMillis(lease, "leaseTime"),
                TimeUnit.MILLISECONDS);
    }

    /**
     * Releases one hold of the current thread; the last release frees the lock and wakes waiters. Blocks for one
     * round trip.
     *
     * @throws IllegalMonitorStateException when the current thread (on a view: its owner) holds no hold in Redis
     *                                      (also when its lease expired); the message names the lock and the owner
     * @throws LockException                when Redis fails
     */
    @Override
    @Blocking
    void unlock();

    /**
     * Removes the lock whoever holds it and wakes waiters. Holders in other clients learn of it through their
     * {@link LeaseLostListener}s at their next renewal; this client stops renewing the removed holds.
     *
     * <p>On a {@link DistributedReadWriteLock} each side removes only a lock held in its own mode, as Redisson does:
     * {@code writeLock().forceUnlock()} on a lock held by readers returns {@code false} and the readers keep their
     * holds; {@code readLock().forceUnlock()} on a lock held by a writer returns {@code false} and the writer keeps its
     * hold (and its own read holds). In its own mode a side removes every hold, readers' and writer's alike, and
     * wakes every waiter. The check and the removal are one atomic script, whichever client (dlock or Redisson) holds
     * the lock.
     *
     * <p>Only a lock is removed, of any kind: a key of another type, or a hash whose fields are not a lock's (a
     * shopping cart, a Spring Session), is refused with {@link NotALockException} and left as it was; the same script
     * checks and removes, so nothing can slip in between.
     *
     * <p>Blocks for one round trip. Thread-safe.
     *
     * @return whether a lock was removed ({@code false}: nothing held, or, on a read-write lock, held in the other
     *         side's mode)
     * @throws NotALockException when the key holds something that is not a lock (nothing was changed)
     * @throws LockException     when Redis fails or does not answer within the command timeout
     */
    @Blocking
    boolean forceUnlock();

    /** @return whether anybody holds the lock (one round trip) */
    @Blocking
    boolean isLocked();

    /**
     * @return whether the current thread (on a view of {@link #as}: its owner) holds the lock (one round trip)
     */
    @Blocking
    boolean isHeldByCurrentThread();

    /**
     * Redisson's form, for an owner id of this client: {@code as(LockOwner.of(threadId)).isHeldByCurrentThread()}.
     *
     * @return whether the owner {@code threadId} of this client holds the lock (one round trip)
     * @deprecated for removal; use the view, {@code as(LockOwner.of(threadId)).isHeldByCurrentThread()} (for a thread
     *     of this JVM, {@code as(LockOwner.ofThread(thread))}). Code written against Redisson's
     *     {@code isHeldByThread(threadId)}, whose thread id names the owner, becomes
     *     {@code lock.as(LockOwner.of(threadId)).isHeldByCurrentThread()}.
     */
    @Deprecated(since = "0.1", forRemoval = true)
    @Blocking
    boolean isHeldByThread(long threadId);

    /** @return the current thread's (on a view: its owner's) hold count, 0 if it holds none (one round trip) */
    @Blocking
    int getHoldCount();

    /**
     * @return the lock's remaining time to live in milliseconds, {@link #TTL_NOT_LOCKED} when nobody holds it,
     * {@link #TTL_NO_EXPIRY} when its key has no expiry (one round trip)
     */
    @Blocking
    long remainTimeToLive();

    /**
     * How much longer the current thread's hold is known to be valid, without a round trip (it never blocks, also
     * while Redis does not answer). Use it right before an action that must not run without the lock, and pair it
     * with a {@link FencedLock fencing token} where the protected resource can check one.
     *
     * <p>How it is counted: on this JVM's monotonic clock ({@link System#nanoTime()}), from the moment the request
     * that last set the hold's TTL in Redis was <em>sent</em> (the acquisition, a re-entry, a watchdog renewal, or a
     * partial {@code unlock()} that set the TTL back to an outer hold's lease), plus that lease, minus a safety margin
     * of <b>1% of that lease plus 2 ms</b> (for the drift between this clock and Redis's, as in the Redlock analysis):
     * a 30 s watchdog lease is counted as 30 s − 302 ms, a 2 s lease as 2 s − 22 ms. Since Redis starts the TTL no
     * earlier than the request was sent, the result never runs past the hold's expiry in Redis unless the clocks
     * drift apart by more than the margin. For a read hold of a read-write lock, whose acquisitions each expire on
     * their own, it is the longest of them.
     *
     * <p>A change that another client makes (a {@code PEXPIRE} that shortens the TTL, a {@code forceUnlock}, a
     * restart without persistence, a failover) is seen at the latest at the client's next watchdog round, every third
     * of the watchdog timeout, for holds with a fixed lease and watchdog holds alike, and not before: the round reads
     * a fixed-lease hold's TTL back (no longer counted past it from then on; a longer TTL is not adopted), and renews a
     * watchdog hold, which sets its TTL back to at least the watchdog timeout (so a foreign shortening lasts until
     * then). A hold found gone reads {@link Duration#ZERO} from then on, and the client's {@link LeaseLostListener}s
     * are told ({@code REMOVED}).
     *
     * @return a positive duration, or {@link Duration#ZERO} when the calling thread holds nothing, the hold was found
     * lost, or the counted lease has run out
     */
    Duration leaseValidFor();

    /**
     * Sets the current thread's (on a view of {@link #as}: its owner's) hold to expire {@code lease} from now, in one
     * atomic script that changes nothing unless the owner still holds the lock in Redis. On the plain, fenced and fair
     * lock and the write side of a read-write lock it sets the lock's TTL (a write hold never below the owner's own
     * read holds); on the read side it sets each of the owner's live read holds, and the lock's TTL becomes that of
     * the longest live read hold. A lease shorter than what was left is allowed: the hold then ends sooner.
     *
     * <p>Afterwards the hold has a fixed lease: a watchdog hold is no longer renewed and ends {@code lease} from now
     * unless extended again or released, and every acquisition of a re-entered hold counts as taken with
     * {@code lease} (a partial {@code unlock()} sets the TTL to {@code lease} again). {@link #leaseValidFor()} follows,
     * counted from when the request was <em>sent</em>, so the holder never believes in the hold longer than Redis
     * keeps it. Unlike unlocking and acquiring again, the lock is never free in between. Blocks for one round trip;
     * thread-safe.
     *
     * @param lease the new lease, at least 1 ms and at most {@link #MAX_LEASE}
     * @throws NullPointerException         when {@code lease} is null
     * @throws IllegalArgumentException     when {@code lease} is out of that range; nothing is sent
     * @throws IllegalMonitorStateException when this client knows of no valid hold of the owner: never acquired,
     *                                      released, removed by this client's {@code forceUnlock}, or its lease ran
     *                                      out by the client's count ({@code leaseValidFor()} is zero); nothing is
     *                                      sent. The message names the lock and the owner
     * @throws LockLostException            when the client counted on the hold but Redis no longer has it (its lease
     *                                      ran out there, another client's {@code forceUnlock}, a failover, a
     *                                      restart); the client drops the hold and tells its
     *                                      {@link LeaseLostListener}s. The message names the lock
     * @throws LockException                when Redis fails or does not answer within the command timeout: the hold
     *                                      may or may not have been extended, so {@code leaseValidFor()} counts the
     *                                      sooner of the old lease and the new one; a watchdog hold stays renewed
     */
    void extendLease(Duration lease);

    /** @throws UnsupportedOperationException always: distributed conditions are not supported */
    @Override
    Condition newCondition();
}
