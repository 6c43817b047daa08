package io.dlock.spring;

import io.dlock.LockLostException;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock of a {@link DlockLockRegistry}: a local {@link ReentrantLock} in front of a dlock lock.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>The Redis hold exists exactly while {@code local} is held: it is taken by the thread's outermost acquisition
 *       (after the local one) and released by its last {@code unlock()} (before the local one). Re-entries count only
 *       locally, so the Redis hold always counts exactly one acquisition.</li>
 *   <li>A re-entry never succeeds on a hold Redis no longer has: it first checks, without a round trip, that the
 *       client still counts the hold valid ({@code leaseValidFor}), then that Redis still has the thread's hold (one
 *       read-only round trip, as {@code RedisLockRegistry}'s re-entry costs one). When the hold is gone the re-entry
 *       counts nothing: {@code tryLock} returns false, {@code lock} throws, and the outer {@code unlock()} reports
 *       the loss.</li>
 *   <li>The Redis hold's owner is the holding thread (dlock's sync API), so two objects of one key (after a cache
 *       expiry) still exclude each other's threads in Redis.</li>
 *   <li>{@link #renew} changes only the hold's lease in Redis ({@link io.dlock.DistributedLock#extendLease}), in one
 *       atomic step that never frees the lock; it never acquires, so a hold that is gone stays gone.</li>
 *   <li>No state outlives a hold: the lock object keeps only the local lock, a last-used time and, with the
 *       registry's {@code forgetLostHolds}, the count of holds each thread let go at a failed re-entry (the
 *       {@code unlock()} calls it still owes, each answered with the loss; cleared by its next fresh acquisition),
 *       so a failed {@code unlock()} (which releases locally all the same) leaves nothing that the next holder could
 *       trip on.</li>
 * </ul>
 */
final class DlockRegistryLock implements DistributedLock {
    private final io.dlock.DistributedLock lock;
    /** Null: the watchdog. */
    private final Duration defaultLease;
    private final ReentrantLock local = new ReentrantLock();
    /** Whether a failed re-entry gives up the thread's outer hold too ({@link DlockLockRegistry#setForgetLostHolds}). */
    private final BooleanSupplier forgetLostHolds;
    /** Per thread id: the holds let go at a failed re-entry, whose {@code unlock()} calls report the loss. */
    private final Map<Long, Integer> lostHolds = new ConcurrentHashMap<>();
    private volatile long lastUsedNanos = System.nanoTime();

    DlockRegistryLock(io.dlock.DistributedLock lock, Duration defaultLease) {
        this(lock, defaultLease, () -> false);
    }

    DlockRegistryLock(io.dlock.DistributedLock lock, Duration defaultLease, BooleanSupplier forgetLostHolds) {
        this.lock = lock;
        this.defaultLease = defaultLease;
        this.forgetLostHolds = forgetLostHolds;
    }

    static void checkLease(Duration lease, String parameter, String where) {
        if (lease == null) {
            throw new NullPointerException(where + ": " + parameter + " is null");
        }
        io.dlock.Leases.leaseMillis(where, parameter, lease);
    }

    private long leaseMs(Duration lease) {
        return lease == null ? io.dlock.DistributedLock.LEASE_WATCHDOG : lease.toMillis();
    }

    /**
     * Blocks until held; uninterruptible (the interrupt flag is kept). A re-entry costs one round trip to check that
     * Redis still has the thread's hold.
     *
     * @throws ConcurrentModificationException when this is a re-entry and the hold is gone from Redis (its lease ran
     *                                         out, or it was removed); nothing is counted
     */
    @Override
    public void lock() {
        lockWithLease(defaultLease);
    }

    /** As {@link #lock()} with a fixed lease for this hold (its outermost acquisition). */
    @Override
    public void lock(Duration ttl) {
        checkLease(ttl, "ttl", describe());
        lockWithLease(ttl);
    }

    private void lockWithLease(Duration lease) {
        local.lock();
        if (local.getHoldCount() > 1) {
            reenterOrThrow();
            return;
        }
        lostHolds.remove(Thread.currentThread().getId());
        try {
            lock.lock(leaseMs(lease), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            local.unlock();
            throw e;
        }
        touch();
    }

    /**
     * As {@link #lock()}, ended by an interrupt.
     *
     * @throws ConcurrentModificationException when this is a re-entry and the hold is gone from Redis
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        local.lockInterruptibly();
        if (local.getHoldCount() > 1) {
            reenterOrThrow();
            return;
        }
        lostHolds.remove(Thread.currentThread().getId());
        try {
            lock.lockInterruptibly(leaseMs(defaultLease), TimeUnit.MILLISECONDS);
        } catch (InterruptedException | RuntimeException e) {
            local.unlock();
            throw e;
        }
        touch();
    }

    /**
     * One attempt, no wait for other holders; an interrupt makes it return false with the flag set. A re-entry returns
     * false when the thread's hold is gone from Redis (its lease ran out, or it was removed), counting nothing.
     */
    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, defaultLease);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(Math.max(0, time))), defaultLease);
    }

    /**
     * Waits up to {@code waitTime} in all (for the local lock, then for Redis). A re-entry returns false when the
     * thread's hold is gone from Redis, counting nothing.
     *
     * @param ttl the lease of this hold if it is the thread's outermost; null for the registry's default
     */
    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (ttl != null) {
            checkLease(ttl, "ttl", describe());
        }
        Duration lease = ttl != null ? ttl : defaultLease;
        long deadline = System.nanoTime() + waitTime.toNanos();
        if (!local.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (local.getHoldCount() > 1) {
            boolean held = false;
            try {
                held = holdIsInRedis();
            } finally {
                if (!held) {
                    local.unlock();
                    forgetIfAsked();
                }
            }
            if (held) {
                touch();
            }
            return held;
        }
        lostHolds.remove(Thread.currentThread().getId());
        boolean acquired = false;
        try {
            long left = Math.max(0, deadline - System.nanoTime());
            acquired = lock.tryLock(TimeUnit.NANOSECONDS.toMillis(left), leaseMs(lease), TimeUnit.MILLISECONDS);
        } finally {
            if (!acquired) {
                local.unlock();
            }
        }
        if (acquired) {
            touch();
        }
        return acquired;
    }

    /**
     * A re-entry by {@code lock()} or {@code lockInterruptibly()}, the local lock just taken again: keeps it when Redis
     * still has the thread's hold, else gives it back and throws.
     *
     * @throws ConcurrentModificationException when the hold is gone from Redis
     */
    private void reenterOrThrow() {
        boolean held = false;
        try {
            held = holdIsInRedis();
        } finally {
            if (!held) {
                local.unlock();
                forgetIfAsked();
            }
        }
        if (!held) {
            throw new ConcurrentModificationException("lock '" + lock.getName() + "': cannot re-enter, the hold "
                    + "this thread took is no longer in Redis (its lease ran out, or it was removed): what it "
                    + "protected may have been changed by someone else meanwhile; unlock() the outer hold");
        }
        touch();
    }

    /**
     * After a failed re-entry (its own count given back), with {@code forgetLostHolds}: lets go of the thread's
     * remaining holds in this JVM, records them as owed {@code unlock()} calls, and gives back whatever the client
     * still records of the hold (a release that finds nothing is expected: the hold is gone).
     */
    private void forgetIfAsked() {
        if (!forgetLostHolds.getAsBoolean() || !local.isHeldByCurrentThread()) {
            return;
        }
        int left = local.getHoldCount();
        try {
            lock.unlock();
        } catch (RuntimeException gone) {
            // IllegalMonitorStateException or LockLostException: nothing of the hold is left to give back
        }
        for (int i = 0; i < left; i++) {
            local.unlock();
        }
        lostHolds.merge(Thread.currentThread().getId(), left, Integer::sum);
    }

    /** @return whether the client still counts the thread's hold valid and Redis still has it (one round trip) */
    private boolean holdIsInRedis() {
        return !lock.leaseValidFor().isZero() && lock.isHeldByCurrentThread();
    }

    /**
     * Releases one hold of the current thread; the last one releases the lock in Redis (one round trip).
     *
     * @throws IllegalStateException           when the current thread does not hold the lock (and owes no unlock of
     *                                         a hold let go, below)
     * @throws ConcurrentModificationException when the hold was gone from Redis (lease ran out, or removed); the
     *                                         lock is released locally all the same. Also for each unlock the thread
     *                                         owes for holds a failed re-entry let go ({@code forgetLostHolds})
     */
    @Override
    public void unlock() {
        if (!local.isHeldByCurrentThread()) {
            long thread = Thread.currentThread().getId();
            boolean[] owed = {false};
            lostHolds.computeIfPresent(thread, (id, n) -> {
                owed[0] = true;
                return n > 1 ? n - 1 : null;
            });
            if (owed[0]) {
                throw new ConcurrentModificationException("lock '" + lock.getName() + "' was no longer held in Redis "
                        + "(a re-entry found its hold gone and let it go): what it protected may have been changed by "
                        + "someone else meanwhile");
            }
            throw new IllegalStateException("lock '" + lock.getName() + "': the current thread does not hold it");
        }
        if (local.getHoldCount() > 1) {
            local.unlock();
            return;
        }
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            throw new ConcurrentModificationException("lock '" + lock.getName() + "' was no longer held in Redis "
                    + "when unlocked (its lease ran out, or it was removed): what it protected may have been "
                    + "changed by someone else meanwhile", e);
        } finally {
            local.unlock();
        }
    }

    /**
     * Sets the current thread's hold's time to live to {@code lease} from now, with
     * {@link io.dlock.DistributedLock#extendLease}: one atomic step in Redis that fails, rather than acquires again,
     * when the hold is gone, so the lock is never free in between. Afterwards the hold has that fixed lease (a
     * watchdog hold is no longer renewed). With {@code lease} null (a watchdog registry's {@code renewLock(key)}),
     * only checks the hold: the watchdog renews it anyway.
     *
     * @throws IllegalStateException when the current thread does not hold the lock, or its hold is gone from Redis
     *                               (or its lease ran out by the client's count)
     */
    void renew(Duration lease) {
        if (!local.isHeldByCurrentThread()) {
            throw new IllegalStateException("lock '" + lock.getName() + "': cannot renew, the current thread does "
                    + "not hold it");
        }
        if (lease == null) {
            if (lock.leaseValidFor().isZero() && !lock.isHeldByCurrentThread()) {
                throw new IllegalStateException("lock '" + lock.getName() + "': cannot renew, its hold is gone "
                        + "from Redis");
            }
            return;
        }
        try {
            lock.extendLease(lease);
        } catch (IllegalMonitorStateException | LockLostException e) {
            throw new IllegalStateException("lock '" + lock.getName() + "': cannot renew, its hold is gone ("
                    + e.getMessage() + "): what it protected may have been changed by someone else meanwhile", e);
        }
    }

    /** @throws UnsupportedOperationException always: conditions are not supported */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("lock '" + lock.getName() + "': conditions are not supported");
    }

    boolean isInUseInThisProcess() {
        return local.isLocked() || local.hasQueuedThreads();
    }

    long unusedFor(long nowNanos) {
        return nowNanos - lastUsedNanos;
    }

    private void touch() {
        lastUsedNanos = System.nanoTime();
    }

    private String describe() {
        return "lock '" + lock.getName() + "'";
    }

    /** @return the dlock lock's name */
    String name() {
        return lock.getName();
    }

    @Override
    public String toString() {
        return "DlockRegistryLock[" + lock.getName() + (local.isLocked() ? ", held in this JVM" : "") + "]";
    }
}
