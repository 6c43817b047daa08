package io.dlock.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Named daemon threads for a test; {@link #close()} interrupts whatever is left. */
public final class Workers implements AutoCloseable {
    private final ExecutorService pool;

    public Workers(String prefix) {
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts {@code task} on a new (or idle) worker thread. */
    public <T> Future<T> submit(Callable<T> task) {
        return pool.submit(task);
    }

    /** @return a task running {@code round} until {@code endNanos} ({@link System#nanoTime}), answering how many it ran */
    public static Callable<Integer> until(long endNanos, Callable<?> round) {
        return () -> {
            int rounds = 0;
            while (System.nanoTime() - endNanos < 0) {
                round.call();
                rounds++;
            }
            return rounds;
        };
    }

    /** Starts {@code n} copies of {@code task}, each on a worker thread of its own (or an idle one). */
    public <T> List<Future<T>> submitEach(int n, Callable<T> task) {
        List<Future<T>> started = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            started.add(submit(task));
        }
        return started;
    }

    /** @return a task running {@code round} until {@code stop} is set, answering how many it ran */
    public static Callable<Integer> untilStopped(AtomicBoolean stop, Callable<?> round) {
        return () -> {
            int rounds = 0;
            while (!stop.get()) {
                round.call();
                rounds++;
            }
            return rounds;
        };
    }

    /** Runs {@code task} on a worker thread and waits for its result (at most {@code timeout}). */
    public <T> T call(Duration timeout, Callable<T> task) {
        return get(submit(task), timeout);
    }

    /** @return the thread id of some worker thread (the thread stays in the pool for later tasks) */
    public long someThreadId() {
        return call(Duration.ofSeconds(5), () -> Thread.currentThread().getId());
    }

    /**
     * Waits for {@code future}'s result; a failure of the task is rethrown as is when unchecked, the rest is wrapped in
     * an {@link AssertionError}.
     */
    public static <T> T get(Future<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("task did not finish within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new AssertionError("task failed", cause);
        }
    }

    /**
     * Waits for {@code future} to fail and returns why, unwrapping {@link ExecutionException} and
     * {@link java.util.concurrent.CompletionException}.
     *
     * @throws AssertionError when it succeeds or does not complete within {@code timeout}
     */
    public static Throwable failureOf(Future<?> future, Duration timeout) {
        Object value;
        try {
            value = future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (TimeoutException e) {
            throw new AssertionError("future did not complete within " + timeout.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            return cause;
        }
        throw new AssertionError("expected the future to fail, but it completed with " + value);
    }

    @Override
    public void close() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
