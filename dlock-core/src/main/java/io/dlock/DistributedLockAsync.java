package io.dlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The asynchronous twins of {@link DistributedLock}'s blocking methods (the rule: {@link Blocking}), split out of it as
 * Redisson splits {@code RLockAsync} from {@code RLock}. None blocks: each returns a {@link CompletableFuture} that
 * completes on the client's executor, never on a Redis I/O thread; failures are the exceptions the blocking twin
 * throws, as the future's cause. Argument errors are thrown at once, before anything is sent. Thread-safe.
 */
public interface DistributedLockAsync {

    /**
     * Async {@link DistributedLock#lock()} for the current thread (on a view of {@link DistributedLock#as}: its owner); completes when held.
     * Cancelling the returned future abandons the wait; if the lock was acquired at that moment it is released again
     * (see "one owner's acquisitions in order" in the class comment of {@link DistributedLock}).
     */
    CompletableFuture<Void> lockAsync();

    /** Async {@link DistributedLock#lock(long, TimeUnit)} for the current thread (on a view: its owner); cancellable as above. */
    CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit);

    /**
     * Async {@link DistributedLock#lock(Duration)} for the current thread (on a view: its owner).
     *
     * @throws IllegalArgumentException as {@link DistributedLock#lock(Duration)}, before anything is sent
     */
    default CompletableFuture<Void> lockAsync(Duration lease) {
        return lockAsync(Durations.toMillis(lease, "leaseTime"), TimeUnit.MILLISECONDS);
    }

    /**
     * Redisson's form of {@code as(LockOwner.of(ownerId)).lockAsync(leaseTime, unit)}: async
     * {@link DistributedLock#lock(long, TimeUnit)} for the owner {@code ownerId} of this client, whatever owner this lock or view
     * acts for. Cancelling the returned future abandons the wait; if the lock was acquired at that moment it is
     * released again.
     *
     * @deprecated for removal; one way to name an owner is left, the view: use
     *     {@code as(LockOwner.of(ownerId)).lockAsync(leaseTime, unit)}, or a handle of {@link LockClient#newOwner()}
     *     when the id is not yours to choose. Code written against Redisson's
     *     {@code lockAsync(leaseTime, unit, threadId)}, whose thread id names the owner, becomes
     *     {@code lock.as(LockOwner.of(threadId)).lockAsync(leaseTime, unit)}.
     */
    @Deprecated(since = "0.1", forRemoval = true)
    CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId);

    /** Async {@link DistributedLock#tryLock()} for the current thread (on a view: its owner). */
    CompletableFuture<Boolean> tryLockAsync();

    /**
     * Async {@link DistributedLock#tryLock(long, TimeUnit)} for the current thread (on a view: its owner): a watchdog
     * lease. The same rule for a slow answer: the future completes with {@code false} when the wait ends with Redis's
     * answer still on its way while Redis is healthy (a late grant is given back), exceptionally with a
     * {@link LockException} only when Redis is unavailable ({@link DistributedLock}, "a slow answer is a no").
     */
    default CompletableFuture<Boolean> tryLockAsync(long waitTime, TimeUnit unit) {
        return tryLockAsync(waitTime, DistributedLock.LEASE_WATCHDOG, unit);
    }

    /**
     * Async {@link DistributedLock#tryLock(Duration)} for the current thread.
     *
     * @throws IllegalArgumentException as {@link DistributedLock#tryLock(Duration)}, before anything is sent
     */
    default CompletableFuture<Boolean> tryLockAsync(Duration wait) {
        return tryLockAsync(Durations.toMillis(wait, "waitTime"), TimeUnit.MILLISECONDS);
    }

    /**
     * Async {@link DistributedLock#tryLock(Duration, Duration)} for the current thread.
     *
     * @throws IllegalArgumentException as {@link DistributedLock#tryLock(Duration, Duration)}, before anything is sent
     */
    default CompletableFuture<Boolean> tryLockAsync(Duration wait, Duration lease) {
        return tryLockAsync(Durations.toMillis(wait, "waitTime"), Durations.toMillis(lease, "leaseTime"),
                TimeUnit.MILLISECONDS);
    }

    /**
     * Async {@link DistributedLock#tryLock(long, long, TimeUnit)} for the current thread (on a view: its owner);
     * cancellable. A slow answer completes it with {@code false}, an unavailable Redis with a {@link LockException}, as
     * {@link #tryLockAsync(long, TimeUnit)}.
     */
    CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit);

    /**
     * Redisson's form of {@code as(LockOwner.of(ownerId)).tryLockAsync(waitTime, leaseTime, unit)}, whatever owner
     * this lock or view acts for.
     *
     * @deprecated for removal; use the view, {@code as(LockOwner.of(ownerId)).tryLockAsync(waitTime, leaseTime, unit)}.
     *     Code written against Redisson's {@code tryLockAsync(waitTime, leaseTime, unit, threadId)}, whose thread id
     *     names the owner, becomes {@code lock.as(LockOwner.of(threadId)).tryLockAsync(waitTime, leaseTime, unit)}.
     */
    @Deprecated(since = "0.1", forRemoval = true)
    CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId);

    /**
     * Async {@link DistributedLock#unlock()} for the current thread (on a view: its owner); fails with
     * {@link IllegalMonitorStateException} as unlock.
     */
    CompletableFuture<Void> unlockAsync();

    /**
     * Redisson's form of {@code as(LockOwner.of(ownerId)).unlockAsync()}, whatever owner this lock or view acts for.
     *
     * @deprecated for removal; use the view, {@code as(LockOwner.of(ownerId)).unlockAsync()}. Code written against
     *     Redisson's {@code unlockAsync(threadId)}, whose thread id names the owner, becomes
     *     {@code lock.as(LockOwner.of(threadId)).unlockAsync()}.
     */
    @Deprecated(since = "0.1", forRemoval = true)
    CompletableFuture<Void> unlockAsync(long ownerId);

    /**
     * Async {@link DistributedLock#extendLease(Duration)} for the current thread (on a view: its owner); the future fails with the
     * exceptions listed there, except that an invalid {@code lease} is thrown at once.
     */
    CompletableFuture<Void> extendLeaseAsync(Duration lease);

    /**
     * Async {@link DistributedLock#forceUnlock()}; the future fails with {@link NotALockException} when the key holds
     * something that is not a lock (nothing was changed).
     */
    CompletableFuture<Boolean> forceUnlockAsync();

    /** Async {@link DistributedLock#isLocked()}. */
    CompletableFuture<Boolean> isLockedAsync();

    /** Async {@link DistributedLock#isHeldByCurrentThread()}: whether the calling thread, as owner, holds the lock. */
    default CompletableFuture<Boolean> isHeldByCurrentThreadAsync() {
        return isHeldByThreadAsync(Thread.currentThread().getId());
    }

    /**
     * Async {@link DistributedLock#isHeldByThread(long)}: whether the owner {@code threadId} of this client holds the
     * lock, whatever owner this lock or view acts for; fails as {@link #getHoldCountAsync()} does.
     *
     * @deprecated for removal; use the view, {@code as(LockOwner.of(threadId)).isHeldByCurrentThreadAsync()} (for a
     *     thread of this JVM, {@code as(LockOwner.ofThread(thread))}).
     */
    @Deprecated(since = "0.1", forRemoval = true)
    default CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        CompletableFuture<Boolean> held = new CompletableFuture<>();
        getHoldCountAsync(threadId).whenComplete((count, error) -> {
            if (error != null) {
                held.completeExceptionally(error);
            } else {
                held.complete(count > 0);
            }
        });
        return held;
    }

    /** Async {@link DistributedLock#getHoldCount()}: the hold count of the calling thread, as owner. */
    default CompletableFuture<Integer> getHoldCountAsync() {
        return getHoldCountAsync(Thread.currentThread().getId());
    }

    /**
     * Async {@link DistributedLock#getHoldCount()} for the owner {@code ownerId} of this client, whatever owner this
     * lock or view acts for: its hold count, 0 if it holds none (one round trip).
     *
     * @deprecated for removal; use the view, {@code as(LockOwner.of(ownerId)).getHoldCountAsync()}.
     */
    @Deprecated(since = "0.1", forRemoval = true)
    CompletableFuture<Integer> getHoldCountAsync(long ownerId);

    /** Async {@link DistributedLock#remainTimeToLive()}. */
    CompletableFuture<Long> remainTimeToLiveAsync();
}
