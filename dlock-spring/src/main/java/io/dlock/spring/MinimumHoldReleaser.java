package io.dlock.spring;

import io.dlock.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Releases holds whose {@link DistributedLocked#minHoldTime() minimum hold} outlasts their method: one daemon thread
 * that sends each release when it is due, never blocking a caller. Until then the hold keeps its lease (renewed by
 * the watchdog, or fixed), so it stays held while this JVM and its client live.
 *
 * <p>{@link #shutdown()} takes no new releases but still sends those scheduled, at their time (the thread is a daemon,
 * so it never holds up the JVM's exit); if the client is closed first, the release fails and the hold expires with its
 * lease. Thread-safe.
 */
final class MinimumHoldReleaser {
    private static final Logger log = LoggerFactory.getLogger(MinimumHoldReleaser.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final ScheduledThreadPoolExecutor timer;

    MinimumHoldReleaser() {
        timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "dlock-min-hold-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        // the default, stated: releases already scheduled still run after shutdown()
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(true);
    }

    /**
     * Releases the hold of {@code lock}'s owner in {@code delayNanos}; never blocks.
     *
     * @param lock the lock's view for the owner whose hold it is ({@link DistributedLock#as})
     */
    void releaseLater(DistributedLock lock, long delayNanos) {
        Runnable release = () -> lock.unlockAsync().whenComplete((done, error) -> {
            if (error != null) {
                log.warn("lock '{}': release after the minimum hold failed ({}); the hold expires with its lease",
                        lock.getName(), error.toString());
            }
        });
        try {
            timer.schedule(release, delayNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // shut down: release now rather than leave a watchdog hold renewed for as long as the client lives
            release.run();
        }
    }

    /** @return releases scheduled and not yet sent */
    int pending() {
        return timer.getQueue().size();
    }

    void shutdown() {
        timer.shutdown();
    }
}
