package io.dlock.internal.acquire;

import io.dlock.internal.lease.TaskScheduler;

import java.util.concurrent.TimeUnit;

/**
 * The head start a client gives other clients after a release through Redis whose message reached their waiters:
 * while it runs, the client's own acquisitions of that name wait inside the client instead of asking Redis. It ends
 * at the latest after {@code lengthNanos}, and early once the client has counted a given number of messages on the
 * name's channel (another client took its turn and let go already), or when its owner ends it. Used alike by the
 * exclusive locks' {@code LocalCohort} and the semaphores' {@code LocalPermits} (docs/architecture.md §5 and §12):
 * the rule, its tenure and its length are written here once.
 *
 * <p>Why: a release through Redis only gives other clients a turn if they can win it. A waiter of the releasing
 * client is awake and next in line and would send its attempt the moment the release reply comes back, while another
 * client's waiter must first receive the message, wake up and send its own; a client with several busy threads would
 * keep a lock (or a semaphore's permits) that others wait for to itself for seconds. With the head start, it keeps it
 * for at most its tenure plus its hand-off cap, give or take the other clients' reaction time. Ending early at the
 * next message (the client's own copy of the release's message not counted) keeps the cost near zero when the other
 * client's turn is shorter than the head start.
 *
 * <p>Not thread-safe: guarded by its owner's monitor (the cohort's, the line's), like the rest of the owner's state.
 * The timer's action runs outside that monitor and must take it.
 */
public final class HeadStart {
    /**
     * How long a client's acquisitions hold back after a release whose message reached other clients' waiters, so
     * that one of those (which must first receive the message, wake and send its attempt) gets its turn rather than
     * an acquisition of this client that is awake and next in line: 10 ms, for locks and semaphores alike. Costs
     * nothing when nobody else waits; when others wait, it ends at the next message (another client took its turn
     * and let go already), so it runs its full length only when the woken waiters do not take their turn.
     */
    public static final long OTHER_CLIENTS_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * How many head starts' lengths a client may keep a lock that others wait for before it gives way: the tenure.
     * Giving way at every release that woke others would make the lock change clients after every streak of local
     * hand-offs, each change costing a pub/sub round trip (S4 of the benchmark fell from ~990 to ~380 ops/s); a tenure
     * bounds what others wait (tenure + one streak + their reaction time) at a small cost in throughput.
     */
    public static final int TENURE_IN_HEAD_STARTS = 5;

    private final TaskScheduler scheduler;
    private final long lengthNanos;
    private final long tenureNanos;
    /** Whether this client has held the lock since {@link #tenureSince} without giving way or finding it taken. */
    private boolean inTenure;
    private long tenureSince;
    private boolean running;
    private Runnable cancelTimer = () -> { };
    /** Messages the client received on the name's channel since its owner exists. */
    private long messages;
    /** While {@link #running}: the {@link #messages} count at which it ends early. */
    private long endsAtMessage;

    public HeadStart(TaskScheduler scheduler, long lengthNanos) {
        this.scheduler = scheduler;
        this.lengthNanos = lengthNanos;
        this.tenureNanos = lengthNanos * TENURE_IN_HEAD_STARTS;
    }

    /** An owner of this client got the lock at {@code nowNanos}: a tenure starts unless one runs. */
    public void held(long nowNanos) {
        if (!inTenure) {
            inTenure = true;
            tenureSince = nowNanos;
        }
    }

    /** The client's tenure ends: another client has the lock, or this one gave way. */
    public void tenureEnds() {
        inTenure = false;
    }

    /** @return whether this client has kept the lock long enough that a release which woke others gives way */
    public boolean due(long nowNanos) {
        return enabled() && inTenure && nowNanos - tenureSince >= tenureNanos;
    }

    /** @return whether a head start of any length is given at all */
    public boolean enabled() {
        return lengthNanos > 0;
    }

    public boolean running() {
        return running;
    }

    public long messages() {
        return messages;
    }

    /**
     * Starts (or restarts) the head start; {@code timeUp} runs when its length has passed, unless it ended before.
     *
     * @param endsAtMessage the {@link #messages()} count that ends it early
     */
    public void start(long endsAtMessage, Runnable timeUp) {
        stop();
        tenureEnds();
        running = true;
        this.endsAtMessage = endsAtMessage;
        cancelTimer = scheduler.schedule(timeUp, lengthNanos);
    }

    /** Ends it (nothing happens if it is not running); its timer is cancelled. */
    public void stop() {
        if (running) {
            running = false;
            cancelTimer.run();
        }
    }

    /**
     * Counts a message on the name's channel.
     *
     * @return true when the message ended a running head start (the caller serves the first waiter)
     */
    public boolean messageArrived() {
        messages++;
        if (!running || messages < endsAtMessage) {
            return false;
        }
        stop();
        return true;
    }
}
