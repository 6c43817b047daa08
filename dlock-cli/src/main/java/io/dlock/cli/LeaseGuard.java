package io.dlock.cli;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Watches the hold's own deadline (not the renewal ticks) and calls {@code onStopTime} once, at the latest at the
 * {@link StopPlan}'s SIGTERM time; meanwhile it passes every new deadline on to the {@link OrphanGuard}.
 *
 * <p>The deadline comes from the {@link RunHold}'s {@code validForNanos()}: the library's {@code leaseValidFor()} of the
 * run's lock hold (its owner being the pid) or of its semaphore permit.
 *
 * <p>The deadline moves later with each watchdog renewal and never moves while renewals fail or the process is
 * stopped, so a guard that wakes late (a stopped JVM, a GC pause) still acts on the deadline it had.
 */
final class LeaseGuard {
    private final LongSupplier validForNanos;
    private final StopPlan plan;
    private final OrphanGuard orphans;
    private final LongConsumer onStopTime;
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param validForNanos ns the hold is known valid for, as the library counts it; 0 when not (never blocks)
     * @param orphans       told each deadline; may be null
     * @param onStopTime    gets the ns the hold is still valid for when its SIGTERM time has come; called at most once
     */
    LeaseGuard(LongSupplier validForNanos, StopPlan plan, OrphanGuard orphans, LongConsumer onStopTime) {
        this.validForNanos = validForNanos;
        this.plan = plan;
        this.orphans = orphans;
        this.onStopTime = onStopTime;
        this.thread = new Thread(this::watch, "dlock-lease-guard");
        thread.setDaemon(true);
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
            long valid = validForNanos.getAsLong();
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
