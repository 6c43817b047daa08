package io.dlock.internal.acquire;

import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandTimeoutException;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The deadline rule of every timed wait of every kind (lock acquisitions, permit acquisitions, latch awaits): the
 * result is settled by the deadline plus {@link #GRACE_MS}, whether or not Redis answered what is in flight. A wait
 * that ends with a command unanswered answers {@code false} (not acquired, not opened) unless Redis is unavailable
 * ({@link Outage#unavailable()}: the connection down, or no answer for a command timeout), and then fails with a
 * {@link io.dlock.LockException} saying that Redis did not answer: a slow answer from a healthy Redis is a "no", as in
 * {@code java.util.concurrent}, and an outage is not reported as "busy". A wait that Redis had answered before (the
 * object was busy, the latch closed) answers {@code false} in any case. What the unanswered command brings later is
 * the caller's to clean up (a loop's undo and give-up, the lost-reply rule).
 */
public final class DeadlineRule {
    /**
     * How long after its deadline a timed wait's last command may still answer before the wait ends without it (a
     * round trip on a healthy network takes well under this).
     */
    public static final long GRACE_MS = 20;

    private DeadlineRule() {
    }

    /**
     * Arms the rule on {@code result}: nothing happens if it completes first.
     *
     * @param waitMs    the wait left, in ms
     * @param answered  whether Redis answered this wait before (read when the deadline passes): the wait then answers
     *                  {@code false} even while Redis is unavailable
     * @param beforehand run when the rule is about to settle the result, before the caller can hear of it (it may run
     *                  although the result then completes otherwise at the same moment): what the caller's next call
     *                  must wait for is recorded here. Recorded after the result completed, it raced the caller's
     *                  retry: an owner's next acquisition could be sent before the unanswered attempt's cleanup was
     *                  known, and that attempt then ran after it and took its hold down (ReadWriteStaleAttemptIT)
     * @param settled   run when the rule settled the result (not when the result completed otherwise)
     */
    public static void arm(Outage outage, long waitMs, CompletableFuture<Boolean> result, BooleanSupplier answered,
                           String kind, String name, String operation, Runnable beforehand, Runnable settled) {
        CompletableFuture<Boolean> timer = outage.pause(waitMs + GRACE_MS);
        result.whenComplete((value, error) -> timer.complete(false));
        timer.thenRun(() -> {
            if (result.isDone()) {
                return;
            }
            beforehand.run();
            boolean byRule = answered.getAsBoolean() || !outage.unavailable() ? result.complete(false)
                    : result.completeExceptionally(Errors.toApi(new RedisCommandTimeoutException(
                            "no answer within the wait of " + waitMs + " ms; Redis is unavailable: connection down, or"
                            + " silent for a command timeout"), kind, name, operation));
            if (byRule) {
                settled.run();
            }
        });
    }
}
