package io.dlock.internal.semaphore;

import io.dlock.LockEventListener;
import io.dlock.internal.Errors;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition of a semaphore that may wait, without holding a thread: every step is a callback of the previous
 * step's future, and at most one Redis attempt is pending at any time.
 *
 * <ol>
 *   <li>Attempt. Granted: the result completes with the grant. Busy and out of time (a single attempt, or the
 *       deadline passed): the result completes with null.</li>
 *   <li>On the first busy reply, join the semaphore's channel (counting wake-ups: a message {@code n > 0} wakes up to
 *       {@code n} waiters of this client); once the subscription is confirmed, attempt again, so a release between
 *       the first attempt and the subscription is not missed.</li>
 *   <li>Then sleep until a wake-up, the attempt's hint (a leased permit's lease end), the re-check interval or the
 *       deadline, whichever is first, and attempt again. A lost message therefore delays by at most the re-check
 *       interval.</li>
 * </ol>
 *
 * <p>While Redis is unavailable ({@link Errors#isUnavailable}: connection lost, timeout, failover), an acquisition
 * without a wait limit pauses and attempts again (0.1 s doubling to 2 s), as the locks' do; one with a limit fails.
 *
 * <p>Invariant: a grant is handed to its caller exactly once or given back ({@link Steps#undo}): when the caller gave
 * up (cancel, interrupt, client closed) while an attempt was in flight, the grant that attempt brings is undone.
 * Thread-safety: the result future is the only shared state; steps run on I/O and timer threads and never block.
 *
 * @param <T> what a grant is (a permit handle, or {@code Boolean.TRUE})
 */
final class WaitLoop<T> {

    /** An attempt's outcome: {@code granted} non-null, or busy with a hint in ms ({@code <= 0}: none). */
    record Reply<T>(T granted, long hintMs) {
        static <T> Reply<T> busy(long hintMs) {
            return new Reply<>(null, hintMs);
        }
    }

    /** What the loop does in Redis. */
    interface Steps<T> {
        /** One attempt; never blocks. */
        CompletableFuture<Reply<T>> attempt();

        /** Gives back a grant nobody will receive (the caller gave up while it was in flight). */
        void undo(T granted);
    }

    private final SemaphoreServices services;
    private final String name;
    private final boolean leased;
    private final String channel;
    private final Steps<T> steps;
    private final boolean timed;
    private final long deadlineNanos;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    static final long FIRST_OUTAGE_PAUSE_MS = 100;
    static final long LONGEST_OUTAGE_PAUSE_MS = 2000;

    /** The next pause after a failure that says Redis is unavailable; reset by any reply. One step at a time. */
    private volatile long outagePauseMs = FIRST_OUTAGE_PAUSE_MS;
    /** Set once, by the step that joins; read only by later steps of the same chain. */
    private volatile WakeupHub.Subscription subscription;

    /**
     * @param name      the semaphore's name, for the acquisition's event
     * @param leased    whether a grant is a leased permit this client holds (for the event)
     * @param waitNanos how long to wait; 0 for a single attempt, negative for no limit
     */
    WaitLoop(SemaphoreServices services, String name, boolean leased, String channel, Steps<T> steps,
             long waitNanos) {
        this.services = services;
        this.name = name;
        this.leased = leased;
        this.channel = channel;
        this.steps = steps;
        this.timed = waitNanos >= 0;
        this.deadlineNanos = services.nanoTime.getAsLong() + Math.max(0, waitNanos);
        result.whenComplete((value, error) -> {
            WakeupHub.Subscription s = subscription;
            if (s != null) {
                s.close();
            }
        });
    }

    /** @return completes with the grant, null when out of time, or the failure */
    CompletableFuture<T> result() {
        return result;
    }

    CompletableFuture<T> start() {
        long startedAt = services.nanoTime.getAsLong();
        // reported on the completing thread, at about the time the caller learns the outcome (maybe just after)
        result.whenComplete((value, error) -> services.events.get().permitAcquisitionEnded(name, leased,
                error instanceof java.util.concurrent.CancellationException ? LockEventListener.Outcome.INTERRUPTED
                        : error != null ? LockEventListener.Outcome.FAILED
                        : value != null ? LockEventListener.Outcome.ACQUIRED : LockEventListener.Outcome.TIMED_OUT,
                services.nanoTime.getAsLong() - startedAt));
        services.register(this);
        attempt();
        return result;
    }

    /** Gives back a grant that the loop delivered but its caller never received (it gave up at that moment). */
    void undo(T granted) {
        steps.undo(granted);
    }

    /** The caller gave up: the loop stops; a grant in flight is given back when it arrives. */
    void abandon() {
        result.cancel(false);
    }

    void fail(Throwable error) {
        result.completeExceptionally(error);
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<Reply<T>> reply;
        try {
            reply = steps.attempt();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        reply.whenComplete((r, error) -> {
            if (error != null) {
                failed(error);
                return;
            }
            outagePauseMs = FIRST_OUTAGE_PAUSE_MS;
            if (r.granted() != null) {
                if (!result.complete(r.granted())) {
                    steps.undo(r.granted());
                }
            } else {
                busy(r.hintMs());
            }
        });
    }

    /** An attempt failed: an acquisition without a limit waits out an outage; everything else ends here. */
    private void failed(Throwable error) {
        if (timed || !Errors.isUnavailable(error) || result.isDone()) {
            result.completeExceptionally(error);
            return;
        }
        long pause = outagePauseMs;
        outagePauseMs = Math.min(LONGEST_OUTAGE_PAUSE_MS, pause * 2);
        Runnable cancel = services.scheduler.schedule(this::attempt, TimeUnit.MILLISECONDS.toNanos(pause));
        result.whenComplete((v, e) -> cancel.run());
    }

    private void busy(long hintMs) {
        long leftNanos = deadlineNanos - services.nanoTime.getAsLong();
        if (timed && leftNanos <= 0) {
            result.complete(null);
            return;
        }
        long bound = Math.min(services.recheckMs, hintMs > 0 ? hintMs : Long.MAX_VALUE);
        if (timed) {
            bound = Math.min(bound, Math.max(1, TimeUnit.NANOSECONDS.toMillis(leftNanos + 999_999)));
        }
        WakeupHub.Subscription s = subscription;
        if (s == null) {
            join(bound);
            return;
        }
        s.sleep(bound).whenComplete((woken, error) -> {
            if (result.isDone()) {
                if (Boolean.TRUE.equals(woken)) {
                    s.passOnWakeup();
                }
                return;
            }
            attempt();
        });
    }

    /** Joins the channel, then attempts once the subscription is confirmed (or after {@code boundMs} at most). */
    private void join(long boundMs) {
        WakeupHub.Subscription s = services.wakeups.joinCounting(channel);
        subscription = s;
        if (result.isDone()) {
            s.close();
            return;
        }
        s.ready().copy().orTimeout(boundMs, TimeUnit.MILLISECONDS).whenComplete((ok, error) -> attempt());
    }
}
