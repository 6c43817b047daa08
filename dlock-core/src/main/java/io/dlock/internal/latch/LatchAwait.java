package io.dlock.internal.latch;

import io.dlock.DistributedLock;
import io.dlock.LockException;
import io.dlock.LockLostException;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Admission;
import io.dlock.internal.acquire.DeadlineRule;
import io.dlock.internal.acquire.Subject;
import io.dlock.internal.acquire.Waiter;
import io.dlock.internal.transport.ServerRuns;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One wait for a latch to open, holding no thread while it waits: a member of the client's {@link LatchGroup} for the
 * latch, which checks the latch's state for all its members and tells each the answers that hold for it. What is the
 * awaiter's own: its deadline, its outcome, and how it takes a failure.
 *
 * <p>Outcomes: {@code true} once an answer finds the latch open; {@code false} once one finds it closed after the
 * deadline (an await with timeout 0 thus makes one check); {@link LockLostException} when an answer finds its key gone
 * on another run of the server than the last one on which this awaiter knew the latch ({@link #found}); a failure: see
 * {@link #checkFailed}. Cancelling
 * {@link #result()} (an interrupt, a cancelled future) or {@link #fail} ends it at once, leaving the other members
 * waiting; whatever ends it, it leaves its group exactly once.
 */
final class LatchAwait implements Waiter {
    private final LatchParts parts;
    private final String name;
    /** Absolute deadline on the client's clock, set by {@link #start}; ignored when {@link #forever}. */
    private volatile long deadlineNanos;
    private final long timeoutMs;
    private final boolean forever;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    /** The run id known before the last check that found the latch closed for this awaiter; null before one. */
    private volatile String closedRun;
    /**
     * The first run id the client knew while this awaiter waited: the cached one at its start, else the one known
     * before the first check sent for it, whatever its answer; null before either.
     */
    private volatile String firstRun;
    /** A check found the latch closed for this awaiter (read by the deadline timer). */
    private volatile boolean answered;

    /** @param timeoutMs how long to wait, or a negative value for no limit */
    LatchAwait(LatchParts parts, String name, long timeoutMs) {
        this.parts = parts;
        this.name = name;
        this.forever = timeoutMs < 0;
        this.timeoutMs = timeoutMs;
    }

    @Override
    public String kind() {
        return LatchProtocol.KIND;
    }

    @Override
    public String name() {
        return name;
    }

    /** Completes when the wait ended: an await takes nothing, so nothing is left to clean up. */
    @Override
    public CompletableFuture<Void> finished() {
        return result.handle((open, error) -> null);
    }

    /** Completes with true when the latch is open, false when the time ran out; cancellable. */
    CompletableFuture<Boolean> result() {
        return result;
    }

    /**
     * Starts the wait through the client's front door (a closed client fails it at once); the caller then adds it to
     * its latch's group ({@link LatchGroups}).
     */
    LatchAwait start() {
        Admission admission;
        try {
            admission = parts.acquisitions().begin(Subject.latchAwait(name),
                    forever ? DistributedLock.WAIT_FOREVER : TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        } catch (LockException closed) {
            result.completeExceptionally(closed);
            return this;
        }
        deadlineNanos = admission.deadline();
        admission.endsWith(result);
        // the run the client knows now, if any, is one on which (or after which) the await began
        begunOn(parts.runs().known(name));
        admission.enter(this); // fails it at once when the client closed meanwhile
        if (!forever) {
            armDeadline();
        }
        return this;
    }

    @Override
    public void fail(RuntimeException error) {
        result.completeExceptionally(error);
    }

    /**
     * The deadline rule of every timed wait ({@link DeadlineRule}): the await ends by its deadline plus the grace even
     * while Redis is silent — {@code false} when a check had found the latch closed or Redis is only slow, a
     * {@link io.dlock.LockException} saying Redis did not answer when it is unavailable.
     */
    private void armDeadline() {
        DeadlineRule.arm(parts.acquisitions().waiting().outage(), Math.max(0, leftMs(parts.nanoTime())), result,
                () -> closedRun != null || answered, LatchProtocol.KIND, name, "await", () -> { }, () -> { });
    }

    /**
     * Records a run id the client knew while this awaiter waited (at its start, or before a check sent for it), if it
     * is the first one (null: unknown).
     */
    private void begunOn(String run) {
        if (firstRun == null && run != null) {
            firstRun = run;
        }
    }

    /**
     * A check sent after this awaiter joined found the latch's key gone: open, unless the run now serving it
     * ({@code after}) differs from the last run on which this awaiter knew the latch — the run of its last closed
     * answer, or, before one, the first run the client knew while it waited (the await began on that run or a later
     * one). Then Redis may have lost the count (a restart without persistence, a failover to a node without the
     * key) and the wait fails with {@link LockLostException}: an opening just before the change cannot be told from
     * a loss, and a loss must not read as an opening.
     *
     * @param before the run id known before the check was sent
     * @param after  the run id read after the check, or null when a "0" heard made the answer an opening
     */
    void found(String before, String after) {
        begunOn(before);
        String read = closedRun;
        String known = read != null ? read : firstRun;
        if (!ServerRuns.changed(known, after)) {
            result.complete(true);
            return;
        }
        String how = read != null
                ? "it was read closed on run " + ServerRuns.shortId(known) + " of the server"
                : "this await began on run " + ServerRuns.shortId(known) + " of the server, before it could read "
                + "the latch, so an opening cannot be told from a loss";
        result.completeExceptionally(new LockLostException(name, LatchProtocol.describe(name)
                + ": await failed: "
                + "Redis lost the latch's count: " + how + ", and its key is gone on run "
                + ServerRuns.shortId(after) + " (a restart without persistence, or a failover to a node without it); "
                + "set the count again if the work is still to be awaited"));
    }

    /**
     * A {@code 0} on the latch's channel was handled after the answer to a flush point sent after this awaiter joined
     * ({@link FlushMarks}): it was published after the join, by an opening (only an opening publishes it), so the
     * latch opened while this awaiter waited. Returns {@code true} whatever the run (an opening is no loss).
     */
    void heardOpening() {
        result.complete(true);
    }

    /**
     * A check sent after this awaiter joined found the latch closed, answering at {@code nowNanos}.
     *
     * @param run the run id known before the check was sent
     */
    void stillClosed(long nowNanos, String run) {
        begunOn(run);
        closedRun = run;
        answered = true;
        if (leftMs(nowNanos) <= 0) {
            result.complete(false);
        }
    }

    /**
     * A check sent after this awaiter joined failed. An untimed await keeps waiting while Redis is unavailable
     * ({@code passes}: the group checks again after a pause doubling from 100 ms to 2 s); a timed one, and any failure
     * that does not pass by itself (a key that is not a latch), ends the wait with it.
     *
     * @param before the run id known before the check was sent, or null when even that could not be read
     */
    void checkFailed(String before, Throwable error, boolean passes) {
        begunOn(before);
        if (!(forever && passes)) {
            result.completeExceptionally(Errors.toApi(error, LatchProtocol.KIND, name, "await"));
        }
    }

    /**
     * The shortest wait for which a group may subscribe before its first check ({@link LatchGroup#add}): that puts a
     * round trip before the first answer, which a short timed wait needs by its deadline (the deadline rule).
     */
    static final long SUBSCRIBE_FIRST_MIN_WAIT_MS = 1000;

    /** @return whether this await waits long enough to subscribe before its first check: untimed, or 1 s or more */
    boolean waitsLong() {
        return forever || leftMs(parts.nanoTime()) >= SUBSCRIBE_FIRST_MIN_WAIT_MS;
    }

    /** @return the ms left until the deadline at {@code nowNanos} (may be 0 or less), or {@link Long#MAX_VALUE} */
    long leftMs(long nowNanos) {
        return forever ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(deadlineNanos - nowNanos);
    }
}
