package io.dlock.internal.lock;

import io.dlock.internal.lease.TaskScheduler;

/**
 * The head start a {@link LocalCohort} gives other clients after a release whose unlock message reached their
 * waiters: while it runs, the cohort's owners queue instead of asking Redis. It ends at the latest after
 * {@code lengthNanos}, and early once the client has counted a given number of unlock messages on the lock's channel
 * (another client had the lock and let go already), or when the cohort ends it.
 *
 * <p>Why: a release through Redis only gives other clients a turn if they can win it. A waiter of the releasing
 * client is awake and next in line and would send its attempt the moment the release reply comes back, while another
 * client's waiter must first receive the message, wake up and send its own; a client with several busy threads would
 * keep a lock that others wait for to itself for seconds. With the head start, it keeps it for at most its hand-off
 * cap plus one critical sections in a row, give or take the other clients' reaction time. Ending early at the next
 * message (the client's own copy of the release's message not counted) keeps the cost near zero when the other
 * client's critical section is shorter than the head start.
 *
 * <p>Not thread-safe: guarded by the owning cohort's monitor, like the rest of its state. The timer's action runs
 * outside that monitor and must take it.
 */
final class HeadStart {
    /**
     * How many head starts' lengths a client may keep a lock that others wait for before it gives way: the tenure.
     * Giving way at every release that woke others would make the lock change clients after every streak of local
     * hand-offs, each change costing a pub/sub round trip (S4 of the benchmark fell from ~990 to ~380 ops/s); a tenure
     * bounds what others wait (tenure + one streak + their reaction time) at a small cost in throughput.
     */
    static final int TENURE_IN_HEAD_STARTS = 5;

    private final TaskScheduler scheduler;
    private final long lengthNanos;
    private final long tenureNanos;
    /** Whether this client has held the lock since {@link #tenureSince} without giving way or finding it taken. */
    private boolean inTenure;
    private long tenureSince;
    private boolean running;
    private Runnable cancelTimer = () -> { };
    /** Unlock messages the client received on the lock's channel since the cohort exists. */
    private long messages;
    /** While {@link #running}: the {@link #messages} count at which it ends early. */
    private long endsAtMessage;

    HeadStart(TaskScheduler scheduler, long lengthNanos) {
        this.scheduler = scheduler;
        this.lengthNanos = lengthNanos;
        this.tenureNanos = lengthNanos * TENURE_IN_HEAD_STARTS;
    }

    /** An owner of this client got the lock at {@code nowNanos}: a tenure starts unless one runs. */
    void held(long nowNanos) {
        if (!inTenure) {
            inTenure = true;
            tenureSince = nowNanos;
        }
    }

    /** The client's tenure ends: another client has the lock, or this one gave way. */
    void tenureEnds() {
        inTenure = false;
    }

    /** @return whether this client has kept the lock long enough that a release which woke others gives way */
    boolean due(long nowNanos) {
        return enabled() && inTenure && nowNanos - tenureSince >= tenureNanos;
    }

    /** @return whether a head start of any length is given at all */
    boolean enabled() {
        return lengthNanos > 0;
    }

    boolean running() {
        return running;
    }

    long messages() {
        return messages;
    }

    /**
     * Starts (or restarts) the head start; {@code timeUp} runs when its length has passed, unless it ended before.
     *
     * @param endsAtMessage the {@link #messages()} count that ends it early
     */
    void start(long endsAtMessage, Runnable timeUp) {
        stop();
        tenureEnds();
        running = true;
        this.endsAtMessage = endsAtMessage;
        cancelTimer = scheduler.schedule(timeUp, lengthNanos);
    }

    /** Ends it (nothing happens if it is not running); its timer is cancelled. */
    void stop() {
        if (running) {
            running = false;
            cancelTimer.run();
        }
    }

    /**
     * Counts an unlock message.
     *
     * @return true when the message ended a running head start (the caller serves the first waiter)
     */
    boolean messageArrived() {
        messages++;
        if (!running || messages < endsAtMessage) {
            return false;
        }
        stop();
        return true;
    }
}
