package io.dlock.internal.acquire;

import io.dlock.internal.Errors;
import io.dlock.internal.wakeup.WakeupHub.Subscription;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One acquisition that may wait: attempt, and while the lock is busy, sleep until a wake-up or the lock's TTL, then
 * attempt again, until acquired, out of time, failed or abandoned. No thread is held while it waits.
 *
 * <p>Order of steps (the no-lost-wake-up rule): attempt → (busy) join the channel → once subscribed attempt again
 * → sleep at most {@code min(ttl, time left)} → attempt … Exactly one step is pending at any time, so the fields below
 * are only touched by one thread at a time (each step happens-after the previous one through the futures).
 *
 * <p>Behind another owner of this client ({@link LocalGate}, plain locks): instead of attempting, or of sleeping on
 * the channel after a failed attempt, the loop waits in the client's queue for that holder ({@code LocalCohort}). A
 * hand-off ends that wait with the lock already granted; any other end of it (the holder released through Redis or
 * lost the lock, the wait ran out) is followed by an attempt in Redis. A wake-up by an unlock message also goes
 * straight to Redis: the local holder may still look alive while its release reply is on its way. A loop waiting
 * locally stays joined to the lock's channel, so that an unlock message that bypasses the local holder (another
 * client's force-unlock) reaches this client and has the holder checked at once ({@code LocalCohorts.unlockMessage});
 * if the subscription was not confirmed yet when the loop queued, the holder is checked once it is, so a forced
 * release in between is not missed either.
 *
 * <p>Redis unavailable ({@link Errors#isUnavailable}): a loop without a deadline pauses (back-off, {@link Outage})
 * and attempts again, for as long as it takes; a loop with a deadline, or a single attempt, fails with the error.
 *
 * <p>Ending: the subscription is closed; a wake-up received but never used (abandoned right after it) is handed to
 * the next waiter; an acquisition that succeeds after the caller gave up is released again. {@link #finished()}
 * completes when all of that is done.
 */
public final class AcquireLoop implements Waiter {
    /** One acquire attempt: completes with null when acquired (and recorded), else the lock's PTTL in ms. */
    public interface Attempt extends Supplier<CompletableFuture<Long>> {
    }

    public static final long NO_DEADLINE = Long.MIN_VALUE;

    private final AcquireSteps steps;
    private final LoopWaiting waiting;
    private final long deadlineNanos;
    private final boolean singleAttempt;
    /** {@code steps.gate()}: null for kinds without local waits. */
    private final LocalGate gate;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private Subscription subscription;
    private volatile CompletableFuture<Boolean> sleeping;
    /** This loop's place behind a local holder while it has one. */
    private volatile LocalTurn queued;
    private boolean unusedWakeup;
    /** The last Redis attempt was sent after the subscription was confirmed (no unlock message can have been lost). */
    private boolean attemptedWhileSubscribed;
    /** Redis answered an attempt of this loop, or the object was handed over locally (read by the deadline timer). */
    private volatile boolean answeredOnce;
    /** The last pause after an unavailability error, 0 after an answer from Redis. */
    private long outageBackoffMs;

    /**
     * @param deadlineNanos {@link #NO_DEADLINE} to wait without limit
     * @param singleAttempt attempt once and never wait
     */
    public AcquireLoop(AcquireSteps steps, LoopWaiting waiting, long deadlineNanos, boolean singleAttempt) {
        this.steps = steps;
        this.waiting = waiting;
        this.gate = steps.gate();
        this.deadlineNanos = deadlineNanos;
        this.singleAttempt = singleAttempt;
    }

    /** Starts the loop (one abandoned or failed before it started just ends); returns the result future. */
    public CompletableFuture<Boolean> start() {
        if (!result.isDone()) {
            if (deadlineNanos != NO_DEADLINE && !singleAttempt) {
                armDeadline();
            }
            attemptNow();
        } else {
            finished.complete(null);
        }
        return result;
    }

    public CompletableFuture<Boolean> result() {
        return result;
    }

    /** @return the kind of object, as errors name it */
    @Override
    public String kind() {
        return steps.kind();
    }

    /** @return the object's name */
    @Override
    public String name() {
        return steps.name();
    }

    /** @return the kind and name of the object, as errors name it ({@code lock 'orders'}) */
    public String describe() {
        return steps.kind() + " '" + steps.name() + "'";
    }

    /** Completes when the loop has fully ended (subscription closed, late acquisition undone). */
    @Override
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /**
     * The deadline rule ({@link DeadlineRule}); when it settles the result, a grant that the unanswered attempt brings
     * later is given back ({@code undo}), and if it never answers, the give-up brings Redis back to what the client
     * knows (the lost-reply rule). The owner's next acquisition starts after that cleanup ({@code nextAfter}).
     */
    private void armDeadline() {
        long waitMs = TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - waiting.nanoTime().getAsLong()));
        DeadlineRule.arm(waiting.outage(), waitMs, result, () -> answeredOnce, steps.kind(), steps.name(), "acquire",
                () -> steps.nextAfter().accept(finished), this::wakeFromWaits);
    }

    /**
     * Gives up: the result is cancelled unless it already completed. If it had completed with {@code true}, the hold
     * is released again. The returned future completes when nothing of this acquisition is left in Redis.
     */
    public CompletableFuture<Void> abandon() {
        if (result.cancel(false)) {
            wakeFromWaits();
            return finished;
        }
        if (acquiredNow()) {
            return steps.undo().get().handle((ok, error) -> null);
        }
        return finished;
    }

    /** Fails the loop (the client is closing). */
    @Override
    public void fail(RuntimeException error) {
        if (result.completeExceptionally(error)) {
            wakeFromWaits();
        }
    }

    /** The result is settled: cut short whatever the loop is waiting for (pub/sub sleep, pause, local queue). */
    private void wakeFromWaits() {
        CompletableFuture<Boolean> sleep = sleeping;
        if (sleep != null) {
            sleep.complete(false);
        }
        LocalTurn waiter = queued;
        if (waiter != null) {
            gate.leave(waiter);
        }
    }

    private void attemptNow() {
        if (gate != null && waitLocally()) {
            return;
        }
        attemptInRedis();
    }

    private void attemptInRedis() {
        if (result.isDone()) {
            // abandoned or failed since this step was chosen: an attempt sent now could only take the lock to give it
            // back (undo), holding it meanwhile. A turn this loop may have been given goes to the next local waiter.
            if (gate != null) {
                gate.passOn();
            }
            end(false);
            return;
        }
        unusedWakeup = false;
        if (subscription == null && !singleAttempt && waiting.hub().confirmed(steps.channels())) {
            // the channels are listened to already (other waiters of this client, a kept line): joining costs no
            // command, and this first attempt then counts as made while subscribed, sparing the one after joining
            subscription = steps.join(waiting.hub());
        }
        attemptedWhileSubscribed = subscription != null && subscription.ready().isDone();
        if (subscription != null) {
            subscription.attempting(); // the wake-ups received so far are covered by this attempt's answer
        }
        CompletableFuture<Long> reply = Errors.call(() -> steps.attempt().get());
        reply.whenComplete(this::afterAttempt);
    }

    /**
     * Waits behind another owner of this client that holds the lock, if one does, instead of asking Redis.
     *
     * @return true if the loop is now waiting (or finished) locally
     */
    private boolean waitLocally() {
        if (singleAttempt) {
            if (!gate.heldLocally()) {
                return false;
            }
            giveUpThen(() -> result.complete(false));
            return true;
        }
        long leftMs = remainingMillis();
        LocalTurn waiter = gate.queue(leftMs == Long.MAX_VALUE ? Long.MAX_VALUE
                : TimeUnit.MILLISECONDS.toNanos(leftMs));
        if (waiter == null) {
            return false;
        }
        queued = waiter;
        if (!joined().ready().isDone()) {
            // a forced release before the subscription was confirmed sent no message this client heard
            subscription.ready().whenComplete((ok, error) -> {
                if (queued == waiter) {
                    gate.verifyHolder();
                }
            });
        }
        if (result.isDone()) {
            gate.leave(waiter);
        }
        waiter.turn().whenComplete((turn, ignored) -> {
            queued = null;
            afterLocalTurn(turn);
        });
        return true;
    }

    /**
     * The local wait ended. A hand-over is an acquisition like a granted attempt: if the caller gave up meanwhile,
     * {@link #afterAttempt} gives the lock back ({@code undo}), in order with whatever else this loop does.
     */
    private void afterLocalTurn(LocalTurn.Turn turn) {
        if (turn == LocalTurn.Turn.HANDED_OVER) {
            afterAttempt(null, null);
        } else if (result.isDone()) {
            gate.passOn();
            end(false);
        } else {
            // the holder is gone, the waiter must refresh its place, or its time is up (one last attempt, as any
            // waiter makes at its deadline): ask Redis
            attemptInRedis();
        }
    }

    private void afterAttempt(Long ttl, Throwable error) {
        if (error == null) {
            answeredOnce = true;
        }
        if (error != null && deadlineNanos == NO_DEADLINE && !result.isDone() && Errors.isUnavailable(error)) {
            waiting.outage().failed(describe(), error);
            pauseThenAttempt();
            return;
        }
        if (error != null) {
            RuntimeException failure = Errors.toApi(error, steps.kind(), steps.name(), "acquire");
            if (Errors.isUnavailable(error)) {
                failThenGiveUp(failure);
            } else {
                giveUpThen(() -> result.completeExceptionally(failure));
            }
            return;
        }
        outageBackoffMs = 0;
        waiting.outage().answered();
        if (ttl == null) {
            end(!result.complete(true));
            return;
        }
        if (gate != null) {
            gate.busyInRedis();
        }
        if (result.isDone()) {
            end(false);
            return;
        }
        long leftMs = remainingMillis();
        if (singleAttempt || leftMs <= 0) {
            giveUpThen(() -> result.complete(false));
            return;
        }
        if (!attemptedWhileSubscribed) {
            sleepThen(joined().ready().handle((ok, subscribeError) -> false), false); // attempt again once subscribed
            return;
        }
        if (gate != null && waitLocally()) {
            return; // another owner of this client holds it: its release wakes this loop, not a message
        }
        long sleepMs = ttl >= 0 ? Math.max(1, ttl) : waiting.fallbackSleepMs();
        // woken by an unlock message: the lock went through Redis. Ask Redis, not the local gate, whose holder may
        // still look alive while its release reply is on its way
        CompletableFuture<Boolean> sleep = subscription.sleep(Math.min(sleepMs, leftMs));
        if (gate != null) {
            // a nudge (another owner of this client came to hold it) ends the sleep as no message does: the next
            // step then goes through the local gate and waits behind that owner
            Runnable stopNudges = gate.sleepingOnChannel(() -> sleep.complete(false));
            sleep.whenComplete((woken, ignored) -> stopNudges.run());
        }
        sleepThen(sleep, true);
    }

    /**
     * Waits for {@code sleep} (a pub/sub sleep or an outage pause; cut short when the loop is settled), then
     * attempts: in Redis when a message woke it and {@code wokenGoesToRedis}, else through the local gate.
     */
    private void sleepThen(CompletableFuture<Boolean> sleep, boolean wokenGoesToRedis) {
        sleeping = sleep;
        if (result.isDone()) {
            sleep.complete(false);
        }
        sleep.whenComplete((woken, ignored) -> {
            sleeping = null;
            boolean byMessage = wokenGoesToRedis && Boolean.TRUE.equals(woken);
            if (result.isDone()) {
                unusedWakeup = byMessage;
                end(false);
            } else if (byMessage) {
                attemptInRedis();
            } else {
                attemptNow();
            }
        });
    }

    /** @return the loop's membership of its channels, joined on first use */
    private Subscription joined() {
        if (subscription == null) {
            subscription = steps.join(waiting.hub());
        }
        return subscription;
    }

    /** Redis is unavailable: attempt again after a pause (cut short when the loop is abandoned or failed). */
    private void pauseThenAttempt() {
        outageBackoffMs = Outage.nextBackoff(outageBackoffMs);
        sleepThen(waiting.outage().pause(outageBackoffMs), false);
    }

    private long remainingMillis() {
        if (deadlineNanos == NO_DEADLINE) {
            return Long.MAX_VALUE;
        }
        long leftNanos = deadlineNanos - waiting.nanoTime().getAsLong();
        return leftNanos <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNanos + 999_999));
    }

    /**
     * Ends the loop without the lock, cleaning up (give-up) <em>before</em> the result is completed, so that a
     * caller who retries at once with the same owner never has its new attempt undone by this one's late give-up.
     */
    private void giveUpThen(Runnable completeResult) {
        closeSubscription();
        CompletableFuture<?> done = Errors.call(() -> steps.giveUp().get());
        done.whenComplete((ok, error) -> {
            completeResult.run();
            finished.complete(null);
        });
    }

    /**
     * Ends the loop with {@code failure} because Redis is unavailable: the caller hears of it now, and the give-up runs
     * after, since its own command would most likely wait a whole command timeout more (a wait limit holds within one
     * command timeout). The give-up is recorded first ({@code nextAfter}), so that a caller who retries at once with
     * the same owner still starts only after it.
     */
    private void failThenGiveUp(RuntimeException failure) {
        closeSubscription();
        CompletableFuture<Void> cleanup = new CompletableFuture<>();
        steps.nextAfter().accept(cleanup);
        result.completeExceptionally(failure);
        CompletableFuture<?> done = Errors.call(() -> steps.giveUp().get());
        done.whenComplete((ok, error) -> {
            cleanup.complete(null);
            finished.complete(null);
        });
    }

    private void closeSubscription() {
        if (subscription != null) {
            if (unusedWakeup) {
                subscription.passOnWakeup();
            }
            subscription.close();
            subscription = null;
        }
    }

    /** @param undoAcquisition the lock was acquired after the caller gave up: release it again */
    private void end(boolean undoAcquisition) {
        closeSubscription();
        boolean acquired = undoAcquisition || acquiredNow();
        Supplier<CompletableFuture<?>> cleanup = undoAcquisition ? steps.undo() : acquired ? null : steps.giveUp();
        if (cleanup == null) {
            finished.complete(null);
            return;
        }
        CompletableFuture<?> done = Errors.call(() -> cleanup.get());
        done.whenComplete((ok, error) -> finished.complete(null));
    }

    /** @return whether the result says "acquired" (never throws, whatever the result holds) */
    private boolean acquiredNow() {
        return result.isDone() && !result.isCompletedExceptionally() && Boolean.TRUE.equals(result.join());
    }
}
