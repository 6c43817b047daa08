package io.dlock.internal.lock;

import io.dlock.internal.acquire.LocalTurn;

import java.util.concurrent.CompletableFuture;

/** One owner of a client waiting in a {@link LocalCohort} behind another owner of the same client. */
final class LocalWaiter implements LocalTurn {
    final long ownerId;
    final long leaseMs;
    /** Completes exactly once, when the waiter leaves the queue or its reserved hand-off is settled. */
    final CompletableFuture<Turn> turn = new CompletableFuture<>();

    @Override
    public CompletableFuture<Turn> turn() {
        return turn;
    }
    /** When the waiter's caller stops waiting ({@link System#nanoTime} scale), or null without limit. */
    final Long deadlineNanos;
    /**
     * When the waiter must ask Redis again even behind a live local holder, or null never: a fair-lock waiter keeps
     * its place in the Redis queue fresh this way ({@link FairProtocol}).
     */
    final Long refreshAtNanos;
    /**
     * A waiter for a shared hold (a reader of a read-write lock): readers behind a local writer are served together
     * ({@link LocalCohort#reserveHandoff(long, io.dlock.internal.lease.Hold, LocalLine.Pick)}).
     */
    final boolean shared;
    /** Cancels the waiter's timer; set by the cohort under its monitor. */
    volatile Runnable cancelTimeout = () -> { };
    /**
     * Its caller left while a hand-off had it reserved (guarded by the cohort's monitor): if the lock goes to another
     * reserved waiter, this one is not put back in line but sent on ({@link LocalCohort#leave}).
     */
    boolean leftWhileReserved;

    /** When it joined the line (the cohort's clock, ns): how long a reader has waited ({@link LocalLine.Pick}). */
    final long queuedAtNanos;

    /** The name of the thread that asked for the hold, for the hold record a hand-off writes ({@link HoldRecord}). */
    final String thread;

    LocalWaiter(long ownerId, long leaseMs, Long deadlineNanos, Long refreshAtNanos, boolean shared,
                long queuedAtNanos, String thread) {
        this.thread = thread;
        this.queuedAtNanos = queuedAtNanos;
        this.shared = shared;
        this.ownerId = ownerId;
        this.leaseMs = leaseMs;
        this.deadlineNanos = deadlineNanos;
        this.refreshAtNanos = refreshAtNanos;
    }

    /** Ends this waiter's wait (cancelling its timer) with {@code value}; later calls change nothing. */
    void end(Turn value) {
        cancelTimeout.run();
        turn.complete(value);
    }

    /** Ends this waiter's wait: it attempts in Redis. */
    void sendToRedis() {
        end(Turn.ATTEMPT_IN_REDIS);
    }
}
