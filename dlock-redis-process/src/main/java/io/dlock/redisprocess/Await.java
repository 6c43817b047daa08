package io.dlock.redisprocess;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Bounded polling: wait until something holds instead of sleeping a guessed time, and fail saying what was awaited and
 * what was last wrong. Each call computes one deadline ({@link System#nanoTime()}) from its timeout and checks every
 * {@link #POLL_INTERVAL} on the calling thread.
 *
 * <pre>{@code
 * Await.until(Duration.ofSeconds(5), () -> lock.isLocked(), "the lease ran out");
 * Await.untilNoProblem(Duration.ofSeconds(30), () -> replicaInSync() ? null : "replica lags", "replica in sync");
 * Await.untilAsserted(Duration.ofSeconds(5), () -> assertThat(queue).isEmpty());
 * Await.during(Duration.ofMillis(300), () -> !future.isDone(), "the writer keeps waiting");
 * }</pre>
 *
 * <p>A condition or check that throws an exception counts as "not yet"; the last exception becomes the cause of the
 * failure. An {@link AssertionError} is different: it is rethrown at once, as it is, by {@link #until},
 * {@link #untilNoProblem} and {@link #during}, so an assertion inside a condition fails the test instead of being
 * polled away (a condition that asserts "this must never succeed" would otherwise never fail). Only
 * {@link #untilAsserted} retries failed assertions, because that is what it is for: use it when the assertions
 * themselves describe the awaited state. Every other failure is an {@link IllegalStateException} whose message starts
 * with the description of what was awaited. When the waiting thread is interrupted, or a check throws
 * {@link InterruptedException}, the wait ends with an {@link IllegalStateException} and the interrupt flag is set
 * again.
 *
 * <p>Stateless and thread-safe; the checks run on the calling thread, never concurrently with each other.
 */
public final class Await {

    private static final long POLL_MILLIS = 10;

    /** How often a check runs: every 10 ms. */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(POLL_MILLIS);

    private Await() {
    }

    /**
     * A condition that may throw (a Redis call, a future's result …): an exception counts as "not yet", an
     * {@link AssertionError} fails the wait at once.
     */
    @FunctionalInterface
    public interface Condition {
        /** @return whether the awaited state is reached */
        boolean test() throws Exception;
    }

    /**
     * A check that tells what is still wrong: an exception counts as "not yet", an {@link AssertionError} fails the
     * wait at once.
     */
    @FunctionalInterface
    public interface Check {
        /** @return null when the awaited state is reached, else what is still wrong (for the failure message) */
        String problem() throws Exception;
    }

    /** A block of assertions that may throw; an {@link AssertionError} (or any exception) counts as "not yet". */
    @FunctionalInterface
    public interface Assertions {
        /** Runs the assertions; returns normally when they pass. */
        void run() throws Exception;
    }

    /**
     * Blocks until {@code condition} returns true, checking every {@link #POLL_INTERVAL}.
     *
     * @param what describes what is awaited, for the failure message (e.g. {@code "the waiter subscribes"})
     * @return how long it took
     * @throws IllegalStateException naming {@code what}, the timeout and the last exception (as message and cause)
     *                               when it does not happen within {@code timeout}, or when interrupted
     * @throws AssertionError        at once, as thrown by the condition
     */
    public static Duration until(Duration timeout, Condition condition, String what) {
        Objects.requireNonNull(what, "what");
        return until(timeout, condition, () -> what);
    }

    /**
     * As {@link #until(Duration, Condition, String)}, with the description computed on failure only (e.g. to show
     * the state that was wrong).
     */
    public static Duration until(Duration timeout, Condition condition, Supplier<String> what) {
        Objects.requireNonNull(condition, "condition");
        return untilNoProblem(timeout, () -> condition.test() ? null : "still false", what);
    }

    /**
     * Blocks until {@code check} returns null ("nothing wrong"), checking every {@link #POLL_INTERVAL}.
     *
     * @param what describes what is awaited, for the failure message (e.g. {@code "cluster healthy"})
     * @return how long it took
     * @throws IllegalStateException naming {@code what}, the timeout and the last problem reported (or thrown) when
     *                               the time is up, or when interrupted
     * @throws AssertionError        at once, as thrown by the check
     */
    public static Duration untilNoProblem(Duration timeout, Check check, String what) {
        Objects.requireNonNull(what, "what");
        return untilNoProblem(timeout, check, () -> what);
    }

    /** As {@link #untilNoProblem(Duration, Check, String)}, with the description computed on failure only. */
    public static Duration untilNoProblem(Duration timeout, Check check, Supplier<String> what) {
        return poll(timeout, check, what, false);
    }

    /** The polling loop; {@code retryAssertions} is set by {@link #untilAsserted} only. */
    private static Duration poll(Duration timeout, Check check, Supplier<String> what, boolean retryAssertions) {
        Objects.requireNonNull(check, "check");
        Objects.requireNonNull(what, "what");
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            String problem;
            Throwable thrown = null;
            try {
                problem = check.problem();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what.get() + ": interrupted while waiting", e);
            } catch (AssertionError e) {
                if (!retryAssertions) {
                    throw e;
                }
                problem = e.toString();
                thrown = e;
            } catch (Exception e) {
                problem = e.toString();
                thrown = e;
            }
            if (problem == null) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException(what.get() + ": not within " + timeout.toMillis()
                        + " ms; last problem: " + problem, thrown);
            }
            pause(what, problem);
        }
    }

    /**
     * Runs {@code assertions} until they pass, every {@link #POLL_INTERVAL}: the one wait that treats a failed
     * assertion (or any exception) as "not yet". Use it only when the assertions describe the awaited state, never for
     * an assertion that must hold at every poll.
     *
     * @return how long it took
     * @throws IllegalStateException with the last failure (as message and cause) when they do not pass within
     *                               {@code timeout}, or when interrupted
     */
    public static Duration untilAsserted(Duration timeout, Assertions assertions) {
        Objects.requireNonNull(assertions, "assertions");
        return poll(timeout, () -> {
            assertions.run();
            return null;
        }, () -> "assertions pass", true);
    }

    /**
     * Checks that {@code condition} holds at every poll for the whole {@code interval} (and at its end); blocks for
     * the interval unless it stops holding earlier.
     *
     * @param what describes what must keep holding, for the failure message
     * @throws IllegalStateException naming {@code what} and the time elapsed as soon as it does not hold (or throws
     *                               an exception, as cause), or when interrupted
     * @throws AssertionError        at once, as thrown by the condition
     */
    public static void during(Duration interval, Condition condition, String what) {
        Objects.requireNonNull(what, "what");
        during(interval, condition, () -> what);
    }

    /** As {@link #during(Duration, Condition, String)}, with the description computed on failure only. */
    public static void during(Duration interval, Condition condition, Supplier<String> what) {
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(what, "what");
        long start = System.nanoTime();
        long end = start + interval.toNanos();
        while (true) {
            boolean holds;
            try {
                holds = condition.test();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(what.get() + ": interrupted while checking", e);
            } catch (Exception e) {
                throw new IllegalStateException(what.get() + ": failed after " + millisSince(start) + " ms: " + e, e);
            }
            if (!holds) {
                throw new IllegalStateException(what.get() + ": stopped holding after " + millisSince(start) + " ms");
            }
            if (System.nanoTime() - end >= 0) {
                return;
            }
            pause(what, "still holding");
        }
    }

    /**
     * @param startNanos a {@link System#nanoTime()} reading
     * @return whole milliseconds elapsed since then (to report or bound how long something took)
     */
    public static long millisSince(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
    }

    private static void pause(Supplier<String> what, String last) {
        try {
            Thread.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(what.get() + ": interrupted while waiting; last problem: " + last, e);
        }
    }
}
