package io.dlock.internal.acquire;

import io.dlock.internal.Errors;
import io.dlock.internal.lease.TaskScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * How acquisitions without a wait limit ride out Redis being unavailable ({@link Errors#isUnavailable}): they retry
 * with back-off instead of failing. One per client: it logs the start of an outage once (not once per attempt or per
 * waiter) and its end once, and paces the retries on the client's timer. It also tells the deadline rule whether Redis
 * is unavailable now ({@link #unavailable()}), or only slow.
 *
 * <p>Thread-safe; never blocks.
 */
public final class Outage {
    /** First pause after a failed attempt; doubled after each further failure, up to {@link #MAX_BACKOFF_MS}. */
    static final long FIRST_BACKOFF_MS = 100;
    static final long MAX_BACKOFF_MS = 2000;

    private static final Logger log = LoggerFactory.getLogger(Outage.class);

    private final TaskScheduler scheduler;
    private final BooleanSupplier unavailable;
    private final AtomicBoolean down = new AtomicBoolean();

    /**
     * @param unavailable whether Redis is unavailable now: the command connection down, or no answer for a command
     *                    timeout ({@code io.dlock.internal.transport.AnswerWatch#unavailable})
     */
    public Outage(TaskScheduler scheduler, BooleanSupplier unavailable) {
        this.scheduler = scheduler;
        this.unavailable = unavailable;
    }

    /** @return whether Redis is unavailable now (connection down, or silent for a command timeout), not only slow */
    boolean unavailable() {
        return unavailable.getAsBoolean();
    }

    /** @return the pause after a failure that followed a pause of {@code previousMs} (0: the first failure) */
    public static long nextBackoff(long previousMs) {
        return previousMs <= 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, previousMs * 2);
    }

    /**
     * An attempt failed with an unavailability error: logged if it starts an outage.
     *
     * @param object the kind and name of the object ({@code lock 'orders'})
     */
    void failed(String object, Throwable error) {
        if (down.compareAndSet(false, true)) {
            log.warn("Redis is unavailable ({}: acquire failed: {}); acquisitions without a wait limit keep retrying "
                    + "until it answers, the others fail", object, Errors.describe(error));
        }
    }

    /** An attempt got an answer from Redis: logged if that ends an outage. Cheap (one volatile read) otherwise. */
    void answered() {
        if (down.get() && down.compareAndSet(true, false)) {
            log.info("Redis answers again; waiting acquisitions go on");
        }
    }

    /** @return a future completed with false after {@code millis} on the client's timer; completing it cuts it short */
    public CompletableFuture<Boolean> pause(long millis) {
        CompletableFuture<Boolean> pause = new CompletableFuture<>();
        Runnable cancel = scheduler.schedule(() -> pause.complete(false), TimeUnit.MILLISECONDS.toNanos(millis));
        pause.whenComplete((ok, error) -> cancel.run());
        return pause;
    }
}
