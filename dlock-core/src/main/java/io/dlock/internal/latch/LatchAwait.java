package io.dlock.internal.latch;

import io.dlock.LockEventListener;
import io.dlock.internal.Errors;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One wait for a latch to open, holding no thread while it waits.
 *
 * <h2>Protocol</h2>
 * <ol>
 *   <li>Check the count ({@code latch_state}): open (no count above 0) ends the wait with {@code true}.</li>
 *   <li>When it is closed and the check was sent before this awaiter had joined the latch's channel with a confirmed
 *       subscription, join it (every message wakes every awaiter of this client: a "0" opens the latch for all) and
 *       check again once the subscription is confirmed, so that a count-down between the check and the join is not
 *       missed. This holds also when another awaiter of the client had subscribed the channel already: a message
 *       that arrived before this awaiter joined woke only the others.</li>
 *   <li>Then sleep until a message, or the bounded re-check: {@link LatchServices#recheckMs}, the latch's remaining
 *       TTL plus 1 ms (so an expiry is seen as it happens), or the time left, whichever is shortest; check again.</li>
 * </ol>
 * A check woken by the timer rather than a message that finds the latch open after it was closed runs
 * {@code latch_opened}, which publishes "0" if the latch is still open: Redisson's untimed awaiters, which only a
 * message wakes, then learn of an expiry (or of a lost message) too.
 *
 * <p>Failures: an untimed wait keeps checking while Redis is unavailable (pauses doubling from 100 ms to 2 s); a timed
 * one, and any failure that does not pass by itself (a key that is not a latch), ends the wait with it. Cancelling
 * {@link #result()} or {@link #fail} ends it at once; the subscription is dropped exactly once.
 */
final class LatchAwait {
    private final LatchServices services;
    private final RedisCountDownLatch latch;
    /** Absolute deadline on {@link LatchServices#nanoTime}; ignored when {@link #forever}. */
    private final long deadlineNanos;
    private final boolean forever;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    /** Guarded by {@code this}: the channel membership, joined once, dropped when the wait ends. */
    private WakeupHub.Subscription subscription;
    private boolean sawClosed;
    private long outagePauseMs;

    /** @param timeoutMs how long to wait, or a negative value for no limit */
    LatchAwait(LatchServices services, RedisCountDownLatch latch, long timeoutMs) {
        this.services = services;
        this.latch = latch;
        this.forever = timeoutMs < 0;
        this.deadlineNanos = services.nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, timeoutMs));
        result.whenComplete((ok, error) -> dropSubscription());
    }

    String name() {
        return latch.getName();
    }

    /** Completes with true when the latch is open, false when the time ran out; cancellable. */
    CompletableFuture<Boolean> result() {
        return result;
    }

    LatchAwait start() {
        long startedAt = services.nanoTime.getAsLong();
        // reported on the completing thread, at about the time the caller learns the outcome (maybe just after)
        result.whenComplete((open, error) -> services.events.get().latchAwaitEnded(latch.getName(),
                error instanceof java.util.concurrent.CancellationException ? LockEventListener.Outcome.INTERRUPTED
                        : error != null ? LockEventListener.Outcome.FAILED
                        : Boolean.TRUE.equals(open) ? LockEventListener.Outcome.ACQUIRED
                        : LockEventListener.Outcome.TIMED_OUT,
                services.nanoTime.getAsLong() - startedAt));
        services.register(this);
        check(true);
        return this;
    }

    void fail(RuntimeException error) {
        result.completeExceptionally(error);
    }

    private void check(boolean byMessage) {
        if (result.isDone()) {
            return;
        }
        boolean whileJoined = joinedAndReady();
        latch.state().whenComplete((state, error) -> {
            if (error != null) {
                failed(error);
            } else {
                checked(state, byMessage, whileJoined);
            }
        });
    }

    private void failed(Throwable error) {
        if (forever && Errors.isUnavailable(error) && !services.isClosed()) {
            outagePauseMs = Math.min(LatchServices.MAX_OUTAGE_PAUSE_MS, Math.max(100, outagePauseMs * 2));
            sleep(outagePauseMs);
            return;
        }
        result.completeExceptionally(LatchErrors.toApi(error, name(), "await"));
    }

    /** @param whileJoined the check was sent after this awaiter joined the channel and the subscription was confirmed */
    private void checked(List<Long> state, boolean byMessage, boolean whileJoined) {
        outagePauseMs = 0;
        long count = state.get(0);
        long ttlMs = state.get(1);
        if (count <= 0) {
            if (sawClosed && !byMessage) {
                latch.announceOpened();
            }
            result.complete(true);
            return;
        }
        sawClosed = true;
        long leftMs = forever ? Long.MAX_VALUE
                : TimeUnit.NANOSECONDS.toMillis(deadlineNanos - services.nanoTime.getAsLong());
        if (leftMs <= 0) {
            result.complete(false);
            return;
        }
        WakeupHub.Subscription joined = join();
        if (joined == null) {
            return; // the wait ended meanwhile
        }
        if (!whileJoined) {
            // check again once subscribed: a count-down before that sent its message to nobody of this awaiter's
            joined.ready().whenComplete((ok, error) -> check(false));
            return;
        }
        long sleepMs = Math.min(services.recheckMs, leftMs);
        if (ttlMs > 0) {
            sleepMs = Math.min(sleepMs, ttlMs + 1);
        }
        sleep(sleepMs);
    }

    private void sleep(long millis) {
        WakeupHub.Subscription joined = join();
        if (joined == null) {
            return;
        }
        joined.sleep(millis).whenComplete((woken, error) -> check(Boolean.TRUE.equals(woken)));
    }

    /** @return whether this awaiter has joined the channel and Redis confirmed the subscription */
    private synchronized boolean joinedAndReady() {
        return subscription != null && subscription.ready().isDone();
    }

    /** @return the subscription, joined on first use; null when the wait has ended */
    private synchronized WakeupHub.Subscription join() {
        if (result.isDone()) {
            return null;
        }
        if (subscription == null) {
            subscription = services.wakeups.join(latch.channel().channel(), true);
        }
        return subscription;
    }

    private synchronized void dropSubscription() {
        if (subscription != null) {
            subscription.close();
        }
    }
}
