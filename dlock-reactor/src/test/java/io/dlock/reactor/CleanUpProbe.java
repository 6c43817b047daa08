package io.dlock.reactor;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * A work's cancel clean-up that lasts at least {@link #LASTS_NANOS}, and during which another client tries once to get
 * in (a blocking attempt of the core API on a thread of its own). The rule under test: the hold ends only after the
 * work's cancellation has run to its end, so that attempt must always fail. Counts the clean-ups and the attempts that
 * got in; thread-safe.
 *
 * <p>The clean-up spins rather than sleeps: a cancel may come on a Reactor thread, where BlockHound refuses a sleep.
 */
final class CleanUpProbe {
    /** How long a clean-up lasts at least: a rollback, an in-flight call cancelled. */
    static final long LASTS_NANOS = 30_000_000;
    private static final long ATTEMPT_ANSWERED_WITHIN_NANOS = 10_000_000_000L;

    private final BooleanSupplier anotherGetsIn;
    private final AtomicInteger cleanUps = new AtomicInteger();
    private final AtomicInteger gotIn = new AtomicInteger();
    private final AtomicReference<Throwable> attemptFailed = new AtomicReference<>();

    /**
     * @param anotherGetsIn another client's one attempt to take what the work holds; gives back what it took; answers
     *                      whether it got in
     */
    CleanUpProbe(BooleanSupplier anotherGetsIn) {
        this.anotherGetsIn = anotherGetsIn;
    }

    /** The work's cancel clean-up: returns when the other client's attempt was answered, and 30 ms passed. */
    void cleanUp() {
        long start = System.nanoTime();
        cleanUps.incrementAndGet();
        AtomicReference<Boolean> answer = new AtomicReference<>();
        Thread attempt = new Thread(() -> {
            try {
                answer.set(anotherGetsIn.getAsBoolean());
            } catch (Throwable e) {
                attemptFailed.compareAndSet(null, e);
                answer.set(false);
            }
        }, "clean-up-probe");
        attempt.setDaemon(true);
        attempt.start();
        long elapsed;
        do {
            elapsed = System.nanoTime() - start;
        } while ((answer.get() == null && elapsed < ATTEMPT_ANSWERED_WITHIN_NANOS) || elapsed < LASTS_NANOS);
        if (Boolean.TRUE.equals(answer.get())) {
            gotIn.incrementAndGet();
        }
    }

    /**
     * Spins for {@code nanos}: a clean-up's time on a thread where BlockHound refuses a sleep (and
     * {@code Thread.onSpinWait}, which it counts as blocking).
     */
    static void spin(long nanos) {
        long start = System.nanoTime();
        long elapsed;
        do {
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
    }

    int cleanUps() {
        return cleanUps.get();
    }

    /** @return how many attempts got in during a clean-up */
    int gotIn() {
        return gotIn.get();
    }

    /** @return the first attempt that failed (threw) instead of answering, or null */
    Throwable attemptFailed() {
        return attemptFailed.get();
    }
}
