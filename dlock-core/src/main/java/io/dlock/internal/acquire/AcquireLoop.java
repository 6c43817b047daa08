package io.dlock.internal.acquire;

import io.dlock.internal.Errors;
import io.lettuce.core.RedisCommandTimeoutException;
import io.dlock.internal.wakeup.WakeupHub;
import io.dlock.internal.wakeup.WakeupHub.Subscription;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
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

    /**
     * This client's own knowledge of the lock ({@code LocalCohort}) for one owner: lets the loop wait behind another
     * local owner without asking Redis. Exclusive kinds that support hand-offs provide one; others pass null.
     */
    public interface LocalGate {
        /** @return whether another owner of this client holds the lock (a single attempt then fails at once) */
        boolean heldLocally();

        /** @return a place behind the local holder, or null when none holds it (attempt in Redis) */
        LocalTurn queue(long maxWaitNanos);

        /** Leaves the queue (unless a hand-off already chose this waiter). */
        void leave(LocalTurn waiter);

        /** A Redis attempt found the lock busy. */
        void busyInRedis();

        /** Asks Redis whether the local holder still holds the lock; if not, its waiters attempt in Redis. */
        void verifyHolder();

        /** This loop was sent to Redis but will not attempt (it ended meanwhile): the next local waiter may. */
        void passOn();
    }

    public static final long NO_DEADLINE = Long.MIN_VALUE;
    /**
     * How long after its deadline a timed wait's last attempt may still answer before the wait ends without it (a
     * round trip on a healthy network takes well under this).
     */
    public static final long DEADLINE_GRACE_MS = 20;

    private final String kind;
    private final String lockName;
    private final Attempt attempt;
    private final Supplier<CompletableFuture<?>> undo;
    private final Supplier<CompletableFuture<?>> giveUp;
    private final List<String> channels;
    private final WakeupHub hub;
    private final LongSupplier nanoTime;
    private final long deadlineNanos;
    private final boolean singleAttempt;
    private final long fallbackSleepMs;
    private final WakeMode wakeMode;
    private final Outage outage;
    private final LocalGate gate;
    private final Consumer<CompletableFuture<?>> laterCleanup;
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
     * One owner's steps on one object, given by the object's kind ({@code RedisLock#startAcquire} for every lock kind,
     * the semaphores' {@code PermitAcquisition}).
     *
     * @param kind         names the kind of object in errors ("lock", "semaphore", …)
     * @param name         names the object in errors
     * @param attempt      one acquire attempt
     * @param undo         gives back what one granted attempt took: used when the acquisition succeeds after it was
     *                     abandoned
     * @param giveUp       removes what the attempts left behind when the loop ends without a grant (a fair lock's
     *                     queue entry, what an unanswered attempt may have taken); may be a no-op
     * @param channels     the channels whose messages wake this waiter: one for a lock; the members' for a multi-lock
     *                     taken in one step, which then wakes on a message on any of them ({@link WakeupHub#joinAll})
     * @param wakeMode     how a message wakes this client's waiters on the channel; always {@link WakeMode#ALL} with
     *                     several channels
     * @param gate         waits behind local holders and takes hand-offs; null for kinds without
     * @param laterCleanup records a cleanup that finishes after the result completed, so that the owner's next
     *                     acquisition of the object starts after it
     *                     ({@link io.dlock.internal.lease.HoldTable#trackCleanup})
     */
    public record Steps(String kind, String name, Attempt attempt, Supplier<CompletableFuture<?>> undo,
                        Supplier<CompletableFuture<?>> giveUp, List<String> channels, WakeMode wakeMode,
                        LocalGate gate, Consumer<CompletableFuture<?>> laterCleanup) {
    }

    /**
     * How a client's loops wait: one per client ({@link Acquisitions}), for every kind.
     *
     * @param hub             the wake-ups
     * @param nanoTime        the monotonic clock of deadlines
     * @param fallbackSleepMs the longest sleep when the lock has no TTL to bound it
     * @param outage          paces the retries of a loop without deadline while Redis is unavailable
     */
    public record Waiting(WakeupHub hub, LongSupplier nanoTime, long fallbackSleepMs, Outage outage) {
    }

    /**
     * @param deadlineNanos {@link #NO_DEADLINE} to wait without limit
     * @param singleAttempt attempt once and never wait
     */
    public AcquireLoop(Steps steps, Waiting waiting, long deadlineNanos, boolean singleAttempt) {
        this.kind = steps.kind();
        this.lockName = steps.name();
        this.attempt = steps.attempt();
        this.undo = steps.undo();
        this.giveUp = steps.giveUp();
        this.channels = steps.channels();
        this.wakeMode = steps.wakeMode();
        this.gate = steps.gate();
        this.laterCleanup = steps.laterCleanup();
        this.hub = waiting.hub();
        this.nanoTime = waiting.nanoTime();
        this.fallbackSleepMs = waiting.fallbackSleepMs();
        this.outage = waiting.outage();
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
        return kind;
    }

    /** @return the object's name */
    @Override
    public String name() {
        return lockName;
    }

    /** @return the kind and name of the object, as errors name it ({@code lock 'orders'}) */
    public String describe() {
        return kind + " '" + lockName + "'";
    }

    /** Completes when the loop has fully ended (subscription closed, late acquisition undone). */
    @Override
    public CompletableFuture<Void> finished() {
        return finished;
    }

    /**
     * The deadline rule of every timed wait: the result is settled by the deadline plus {@link #DEADLINE_GRACE_MS},
     * whether or not Redis answered the attempt in flight: {@code false} when Redis answered this acquisition before
     * (the object was busy), a {@link io.dlock.LockException} saying that Redis did not answer when it never did (an
     * outage is not reported as "busy"). A grant that the unanswered attempt brings later is given back
     * ({@code undo}); if it never answers, the give-up brings Redis back to what the client knows (the lost-reply
     * rule). The owner's next acquisition starts after that cleanup ({@code laterCleanup}).
     */
    private void armDeadline() {
        long waitMs = TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadlineNanos - nanoTime.getAsLong()));
        CompletableFuture<Boolean> timer = outage.pause(waitMs + DEADLINE_GRACE_MS);
        result.whenComplete((value, error) -> timer.complete(false));
        timer.thenRun(() -> {
            boolean settled = answeredOnce ? result.complete(false)
                    : result.completeExceptionally(Errors.toApi(new RedisCommandTimeoutException(
                            "no answer within the wait of " + waitMs + " ms"), kind, lockName, "acquire"));
            if (settled) {
                laterCleanup.accept(finished);
                wakeFromWaits();
            }
        });
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
            return undo.get().handle((ok, error) -> null);
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
        attemptedWhileSubscribed = subscription != null && subscription.ready().isDone();
        CompletableFuture<Long> reply = Errors.call(() -> attempt.get());
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
        if (subscription == null) {
            subscription = join();
            if (!subscription.ready().isDone()) {
                // a forced release before the subscription was confirmed sent no message this client heard
                subscription.ready().whenComplete((ok, error) -> {
                    if (queued == waiter) {
                        gate.verifyHolder();
                    }
                });
            }
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
            outage.failed(describe(), error);
            pauseThenAttempt();
            return;
        }
        if (error != null) {
            RuntimeException failure = Errors.toApi(error, kind, lockName, "acquire");
            if (Errors.isUnavailable(error)) {
                failThenGiveUp(failure);
            } else {
                giveUpThen(() -> result.completeExceptionally(failure));
            }
            return;
        }
        outageBackoffMs = 0;
        outage.answered();
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
            if (subscription == null) {
                subscription = join();
            }
            subscription.ready().whenComplete((ok, subscribeError) -> {
                if (result.isDone()) {
                    end(false);
                } else {
                    attemptNow();
                }
            });
            return;
        }
        if (gate != null && waitLocally()) {
            return; // another owner of this client holds it: its release wakes this loop, not a message
        }
        long sleepMs = ttl >= 0 ? Math.max(1, ttl) : fallbackSleepMs;
        CompletableFuture<Boolean> sleep = subscription.sleep(Math.min(sleepMs, leftMs));
        sleeping = sleep;
        if (result.isDone()) {
            sleep.complete(false);
        }
        sleep.whenComplete((woken, ignored) -> {
            sleeping = null;
            if (result.isDone()) {
                unusedWakeup = Boolean.TRUE.equals(woken);
                end(false);
            } else if (Boolean.TRUE.equals(woken)) {
                // an unlock message: the lock went through Redis. Ask Redis, not the local gate, whose holder may
                // still look alive while its release reply is on its way
                attemptInRedis();
            } else {
                attemptNow();
            }
        });
    }

    private Subscription join() {
        if (channels.size() > 1) {
            return hub.joinAll(channels);
        }
        return wakeMode == WakeMode.COUNTING ? hub.joinCounting(channels.get(0))
                : hub.join(channels.get(0), wakeMode == WakeMode.ALL);
    }

    /** Redis is unavailable: attempt again after a pause (cut short when the loop is abandoned or failed). */
    private void pauseThenAttempt() {
        outageBackoffMs = Outage.nextBackoff(outageBackoffMs);
        CompletableFuture<Boolean> pause = outage.pause(outageBackoffMs);
        sleeping = pause;
        if (result.isDone()) {
            pause.complete(false);
        }
        pause.whenComplete((ignored, error) -> {
            sleeping = null;
            if (result.isDone()) {
                end(false);
            } else {
                attemptNow();
            }
        });
    }

    private long remainingMillis() {
        if (deadlineNanos == NO_DEADLINE) {
            return Long.MAX_VALUE;
        }
        long leftNanos = deadlineNanos - nanoTime.getAsLong();
        return leftNanos <= 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNanos + 999_999));
    }

    /**
     * Ends the loop without the lock, cleaning up (give-up) <em>before</em> the result is completed, so that a
     * caller who retries at once with the same owner never has its new attempt undone by this one's late give-up.
     */
    private void giveUpThen(Runnable completeResult) {
        closeSubscription();
        CompletableFuture<?> done = Errors.call(() -> giveUp.get());
        done.whenComplete((ok, error) -> {
            completeResult.run();
            finished.complete(null);
        });
    }

    /**
     * Ends the loop with {@code failure} because Redis is unavailable: the caller hears of it now, and the give-up runs
     * after, since its own command would most likely wait a whole command timeout more (a wait limit holds within one
     * command timeout). The give-up is recorded first ({@code laterCleanup}), so that a caller who retries at once with
     * the same owner still starts only after it.
     */
    private void failThenGiveUp(RuntimeException failure) {
        closeSubscription();
        CompletableFuture<Void> cleanup = new CompletableFuture<>();
        laterCleanup.accept(cleanup);
        result.completeExceptionally(failure);
        CompletableFuture<?> done = Errors.call(() -> giveUp.get());
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
        Supplier<CompletableFuture<?>> cleanup = undoAcquisition ? undo : acquired ? null : giveUp;
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
