package io.dlock.internal.lease;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Runs a task once after a delay. Injectable so that renewal logic is tested without real time. */
public interface TaskScheduler {

    /**
     * @param delayNanos delay from now, in nanoseconds (≤ 0: as soon as possible)
     * @return an action that cancels the task if it has not run yet (idempotent)
     */
    Runnable schedule(Runnable task, long delayNanos);

    /** A scheduler backed by a {@link ScheduledExecutorService}. */
    static TaskScheduler of(ScheduledExecutorService executor) {
        return (task, delayNanos) -> {
            ScheduledFuture<?> future = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> future.cancel(false);
        };
    }
}
