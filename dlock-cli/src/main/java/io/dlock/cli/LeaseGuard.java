package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockOwner;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * Watches the hold's own deadline (not the renewal ticks) and calls {@code onStopTime} once, at the latest at the
 * {@link StopPlan}'s SIGTERM time; meanwhile it passes every new deadline on to the {@link OrphanGuard}.
 *
 * <p>The deadline comes from {@link DistributedLock#leaseValidFor()} of the run's owner (its pid, {@link LockOwner#of}).
 *
 * <p>The deadline moves later with each watchdog renewal and never moves while renewals fail or the process is
 * stopped, so a guard that wakes late (a stopped JVM, a GC pause) still acts on the deadline it had.
 */
final class LeaseGuard {
    private final DistributedLock lock;
    private final StopPlan plan;
    private final OrphanGuard orphans;
    private final LongConsumer onStopTime;
    private final long ownerId;
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param orphans    told each deadline; may be null
     * @param onStopTime gets the ns the hold is still valid for when its SIGTERM time has come; called at most once
     */
    LeaseGuard(DistributedLock lock, long ownerId, StopPlan plan, OrphanGuard orphans, LongConsumer onStopTime) {
        this.lock = lock;
        this.plan = plan;
        this.orphans = orphans;
        this.onStopTime = onStopTime;
        this.ownerId = ownerId;
        this.thread = new Thread(this::watch, "dlock-lease-guard");
        thread.setDaemon(true);
    }

    /** ns the hold is known valid for, as the library counts it for this run's owner; 0 when not. */
    static long validForNanos(DistributedLock lock, long ownerId) {
        return lock.as(LockOwner.of(ownerId)).leaseValidFor().toNanos();
    }

    void start() {
        thread.start();
    }

    void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    private void watch() {
        // re-read at least every tenth of the lease, so that renewals reach the orphan guard long before its deadline
        long recheck = Math.max(plan.lease().toNanos() / 10, 1_000_000L);
        while (!closed) {
            long valid = validForNanos(lock, ownerId);
            long termIn = plan.termInNanos(valid);
            if (termIn <= 0) {
                if (!closed) {
                    onStopTime.accept(valid);
                }
                return;
            }
            if (orphans != null) {
                long half = plan.margin().toNanos() / 2;
                orphans.deadlines(termIn + half, plan.killInNanos(valid));
            }
            LockSupport.parkNanos(Math.min(termIn, recheck));
        }
    }
}
