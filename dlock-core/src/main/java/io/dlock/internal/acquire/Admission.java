package io.dlock.internal.acquire;

import io.dlock.DistributedLock;
import io.dlock.LockEventListener;
import io.dlock.internal.events.EventSink;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition or wait let in by the front door ({@link Acquisitions#begin}): its start on the client's one clock,
 * its deadline, the listeners that follow it. {@link #endsWith} reports its end once; {@link #enter} registers what
 * waits for close. Every
 * kind enters here: locks, lock groups, multi-locks, semaphores, latch awaits, and the reactive bridge through them.
 *
 * <p>Invariants: the start was reported before this object exists (on the caller's thread); the end is reported
 * exactly once, when the result given to {@link #endsWith} completes; a waiter entered after close fails at once.
 */
public final class Admission {
    private final Acquisitions acquisitions;
    private final EventSink events;
    private final Subject subject;
    private final long startedAt;
    private final long deadline;
    private final List<LockEventListener.Acquisition> followed;
    private final AtomicBoolean ending = new AtomicBoolean();

    /**
     * Reports the start, then stamps it: a listener's own clock starts no later than the deadline's base, so the time
     * it measures for an acquisition that ran out of time is never below the wait.
     */
    Admission(Acquisitions acquisitions, EventSink events, Subject subject, long waitNanos) {
        this.acquisitions = acquisitions;
        this.events = events;
        this.subject = subject;
        this.followed = subject.started(events);
        this.startedAt = acquisitions.nanoTime();
        this.deadline = waitNanos == DistributedLock.WAIT_FOREVER ? AcquireLoop.NO_DEADLINE : startedAt + waitNanos;
    }

    /** @return the start, on the client's monotonic clock (ns) */
    public long startedAt() {
        return startedAt;
    }

    /** @return the deadline on the client's monotonic clock, or {@link AcquireLoop#NO_DEADLINE} */
    public long deadline() {
        return deadline;
    }

    /** @return whether any listener follows the acquisition's attempts and grants */
    public boolean followed() {
        return !followed.isEmpty();
    }

    /** Tells the following listeners that an attempt goes to Redis. */
    public void attempted() {
        for (LockEventListener.Acquisition acquisition : followed) {
            acquisition.attempted();
        }
    }

    /** Tells the listener following {@code member} (0 unless a lock group) that it was granted {@code hold}. */
    public void granted(int member, LockEventListener.Hold hold) {
        if (!followed.isEmpty()) {
            followed.get(member).granted(hold);
        }
    }

    /**
     * Reports the end when {@code result} completes: acquired or opened ({@code true}), out of time, or the error.
     * Called once per admission.
     *
     * @return this
     * @throws IllegalStateException when the end is already bound to a result
     */
    public Admission endsWith(CompletableFuture<Boolean> result) {
        if (!ending.compareAndSet(false, true)) {
            throw new IllegalStateException(subject.kind() + " '" + subject.name() + "': the end is reported once");
        }
        result.whenComplete((acquired, error) -> subject.ended(events, followed, acquired, error,
                acquisitions.nanoTime() - startedAt));
        return this;
    }

    /**
     * Lets {@code waiter} in: registered for close until it finished; failed at once when the client is closed.
     *
     * @return {@code waiter}
     */
    public <W extends Waiter> W enter(W waiter) {
        acquisitions.register(waiter);
        return waiter;
    }

    /** {@link #endsWith} {@code result}, then {@link #enter} {@code waiter}: an acquisition that is one waiter. */
    public <W extends Waiter> W enter(W waiter, CompletableFuture<Boolean> result) {
        endsWith(result);
        return enter(waiter);
    }
}
