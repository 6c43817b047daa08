package io.dlock.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A client's executor ({@code LockClientConfig.Builder#executor}) that can hold back what is handed to it: while
 * {@link #hold held}, the tasks wait here until {@link #release}. Every async method of a client completes its
 * caller's future through that executor, so a test that holds it sees an acquisition granted inside the client
 * ({@link #awaitHeld}) while the caller's future is still pending, and cancels it right then: the window of "a cancel
 * as the grant arrives", made as wide as the test needs instead of hit by chance.
 *
 * <p>Thread-safe. {@link #close} shuts the pool down after running what is held.
 */
public final class HeldHandOvers implements Executor, AutoCloseable {
    private final ExecutorService pool = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "held-hand-overs");
        thread.setDaemon(true);
        return thread;
    });
    /** Guarded by this. */
    private boolean holding;
    /** Guarded by this: the tasks handed over while holding, in order. */
    private final List<Runnable> held = new ArrayList<>();

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (holding) {
                held.add(task);
                notifyAll();
                return;
            }
        }
        pool.execute(task);
    }

    /** From now on, tasks wait here until {@link #release}. */
    public synchronized void hold() {
        holding = true;
    }

    /**
     * Waits until at least one task is held.
     *
     * @return whether one is, within {@code timeout}
     */
    public synchronized boolean awaitHeld(Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (held.isEmpty()) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** Stops holding and runs what was held, in order, on the pool. */
    public void release() {
        List<Runnable> now;
        synchronized (this) {
            holding = false;
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(pool::execute);
    }

    @Override
    public void close() {
        release();
        pool.shutdown();
    }
}
