package io.dlock.internal.lease;

/**
 * Runs a task once after a delay. Injectable so that renewal logic is tested without real time; the client's own is
 * the {@link NonBlockingTimer}, whose schedule and cancel never block the calling thread.
 */
public interface TaskScheduler {

    /**
     * @param delayNanos delay from now, in nanoseconds (≤ 0: as soon as possible)
     * @return an action that cancels the task if it has not started yet (idempotent, never blocks)
     */
    Runnable schedule(Runnable task, long delayNanos);
}
