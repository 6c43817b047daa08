package io.dlock.internal;

import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link TaskScheduler} and monotonic clock driven by the test: time moves only in {@link #advance}. */
public final class ManualScheduler implements TaskScheduler {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Task> tasks = new ArrayList<>();

    private static final class Task {
        final long due;
        final Runnable action;
        boolean cancelled;

        Task(long due, Runnable action) {
            this.due = due;
            this.action = action;
        }
    }

    public long nanoTime() {
        return now.get();
    }

    @Override
    public synchronized Runnable schedule(Runnable action, long delayNanos) {
        Task task = new Task(now.get() + Math.max(0, delayNanos), action);
        tasks.add(task);
        return () -> {
            synchronized (this) {
                task.cancelled = true;
            }
        };
    }

    /** Moves time forward, running every task that falls due, in order (tasks may schedule more tasks). */
    public void advanceMillis(long millis) {
        long target = now.get() + millis * 1_000_000L;
        while (true) {
            Task next;
            synchronized (this) {
                tasks.removeIf(t -> t.cancelled);
                next = tasks.stream().filter(t -> t.due <= target).min(Comparator.comparingLong(t -> t.due))
                        .orElse(null);
                if (next == null) {
                    break;
                }
                tasks.remove(next);
                now.set(Math.max(now.get(), next.due));
            }
            next.action.run();
        }
        now.set(target);
    }

    public synchronized int pending() {
        tasks.removeIf(t -> t.cancelled);
        return tasks.size();
    }
}
