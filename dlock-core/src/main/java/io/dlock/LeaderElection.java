package io.dlock;

import java.time.Duration;
import java.util.Optional;

/**
 * Leader election on the fenced lock: candidates in any number of processes compete for one name, and at most one of
 * them holds a valid {@link LeaderTerm} at a time while Redis keeps the lock. Each term carries an {@linkplain
 * LeaderTerm#epoch() epoch}, the fencing token of the win, strictly increasing per name: pass it with every side
 * effect to a resource that rejects an epoch below the highest it has seen, and a leader that lost its term without
 * knowing (a pause, a partition) is stopped there too.
 *
 * <pre>{@code
 * LeaderElection election = client.getLeaderElection("billing-scheduler");
 * election.runWhileLeader(term -> {
 *     while (!Thread.currentThread().isInterrupted()) {
 *         long epoch = term.requireValid();         // before each side effect: the epoch, or an exception
 *         ledger.append(epoch, nextBatch());        // the ledger refuses an epoch below the highest it saw
 *     }
 * });
 * election.start();                                 // never blocks: a candidate from now on
 * }</pre>
 *
 * <h2>The timing rule</h2>
 * A leader renews its term every {@linkplain LeaderElectionSettings#retryPeriod() retry period}. One that has had no
 * confirmed renewal for the {@linkplain LeaderElectionSettings#renewDeadline() renew deadline}, counted on this JVM's
 * monotonic clock from when that renewal was <em>sent</em>, steps down on its own clock: its term is invalid from that
 * moment ({@link LeaderTerm#isValid()} is false, {@link LeaderTerm#requireValid()} throws), before Redis can expire
 * the lock, since the deadline stretched by a 1 % clock-rate error stays below the {@linkplain
 * LeaderElectionSettings#lease() lease}. The gap between the two is the leader's budget to stop its work. A process
 * frozen past that point (a {@code SIGSTOP}, a long GC pause) finds its term invalid before its next guarded action.
 *
 * <p>A revocation ends the term first, then stops the work ({@link #runWhileLeader}'s task is interrupted; the lock is
 * still renewed while it drains, up to {@linkplain LeaderElectionSettings#stopTimeout() the stop timeout}), and only
 * then releases the lock. {@link LeaderListener#revoked} fires exactly once per {@link LeaderListener#elected}, never
 * without one and never after {@link #close()} returns.
 *
 * <h2>Wire</h2>
 * The election's hold is the fenced lock's ({@link LockClient#getFencedLock}): a Redisson {@code RFencedLock} or
 * {@code RLock} on the same name excludes a leader and is excluded by it. The hold belongs to an owner of the
 * election's own ({@link LockClient#newOwner()}), so the work may hop threads.
 *
 * <p>Redis is not a consensus system: see docs/protocol.md, "Leader election", for what holds in which failure and
 * why fencing keeps the data right anyway.
 *
 * <p>Thread-safe. Obtained from {@link LockClient#getLeaderElection(String)}; one object per candidate.
 */
public interface LeaderElection extends AutoCloseable {

    /** @return the election's name (the fenced lock's name) */
    String getName();

    /**
     * Becomes a candidate: from now on a background thread competes for the lock and, once leader, renews the term.
     * Never blocks; idempotent.
     *
     * @throws LockException when the election (or its client) is closed
     */
    void start();

    /**
     * Whether this candidate holds a valid term now, by its own clock; no round trip, never blocks.
     *
     * @return {@code currentTerm().map(LeaderTerm::isValid).orElse(false)}
     */
    boolean isLeader();

    /** @return the term this candidate holds, valid or stepping down, or empty when it holds none; never blocks */
    Optional<LeaderTerm> currentTerm();

    /**
     * Waits until this candidate holds a valid term.
     *
     * @param timeout how long to wait at most
     * @return the term, or empty when the time ran out (or the election was closed meanwhile)
     * @throws InterruptedException     when the calling thread is interrupted while waiting
     * @throws NullPointerException     when {@code timeout} is null
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    @Blocking
    Optional<LeaderTerm> awaitLeadership(Duration timeout) throws InterruptedException;

    /**
     * Yields: ends the current term now (cause {@link LeaderTerm.Cause#RESIGNED}), stops the task, releases the lock,
     * and stays out of the competition for one retry period, so another candidate gets the lock (the unlock message
     * wakes the waiting candidates at once) and the resigner does not win it straight back. Without another candidate
     * it is leader again after that period. Nothing when this candidate holds no term. Blocks until the lock is
     * released (at most the stop timeout plus a command timeout); called from a listener or from the term's task, it
     * only asks, and returns at once (the term ends once the caller has returned).
     */
    @Blocking
    void resign();

    /**
     * Sets the work to run while leader: {@code task} runs once per term, on a thread of its own, from the election
     * on; when the term is revoked its thread is interrupted, and the lock is released only after the task returned
     * (or the stop timeout passed). A task that returns or throws ends its term (causes
     * {@link LeaderTerm.Cause#TASK_ENDED} and {@link LeaderTerm.Cause#TASK_FAILED}), and the candidate competes again
     * after one retry period, as after {@link #resign()}. One task per election; set it before {@link #start()}.
     *
     * @throws NullPointerException  when {@code task} is null
     * @throws IllegalStateException when a task was set already
     */
    void runWhileLeader(LeaderTask task);

    /**
     * Adds a listener, told of {@code elected} and {@code revoked} in that order, on one thread of the election's
     * own (never a Redis I/O thread), one call at a time. A listener must not block for long: the next events wait.
     */
    void addListener(LeaderListener listener);

    /** Removes a listener added before; nothing when it was not added. */
    void removeListener(LeaderListener listener);

    /**
     * Stops being a candidate: ends the current term (cause {@link LeaderTerm.Cause#CLOSED}), stops the task, releases
     * the lock and waits until the listeners have heard of it. Idempotent; blocks at most the stop timeout plus a
     * command timeout; called from a listener or from the term's task, it only asks, and returns at once.
     */
    @Blocking
    @Override
    void close();

    /** The work of a leader, run once per term ({@link #runWhileLeader}). */
    @FunctionalInterface
    interface LeaderTask {
        /**
         * Runs while {@code term} lasts; must stop promptly when its thread is interrupted, and call
         * {@link LeaderTerm#requireValid()} before each side effect.
         */
        void run(LeaderTerm term) throws Exception;
    }
}
