package io.dlock;

/**
 * Told what the locks of one {@link LockClient} do, as it happens: acquisitions (each attempt, the grant, the
 * outcome), hand-offs between owners of the client, and the end and renewal of holds; and what its semaphores and
 * count-down latches do (permit acquisitions, releases and losses, latch awaits and count-downs), and what its
 * {@link LeaderElection}s do (terms won and revoked, renewals). Registered with
 * {@link LockClient#addEventListener}; {@code io.dlock.metrics.LockMetrics} is one, and any code may add its own (an
 * audit log, a tracer, a test probe). Every method does nothing by default, so a listener overrides what it needs.
 *
 * <h2>Contract for implementations</h2>
 * Methods are called synchronously on the thread where the event happens: a caller's thread, a Redis I/O thread or
 * the client's timer thread. So they must be thread-safe and quick, and must never block: no I/O, no waiting for a
 * lock (dlock's blocking methods included), nothing that waits for the client's own threads. An exception thrown by
 * a listener is caught and logged (once at WARN per listener, then at DEBUG), and never reaches the lock code or the
 * other listeners. The cost with no listener is one volatile read per event.
 *
 * <p>A listener hears only events that happen while it is registered, and of acquisitions only those that start then:
 * it must accept a {@link Hold} it never saw begin (a hold taken before it was added). After
 * {@link LockClient#removeEventListener} returns, events still being reported on other threads may reach it, and the
 * {@link Acquisition}s it returned keep receiving theirs until they end.
 *
 * <h2>Order</h2>
 * For one acquisition: {@link #acquisitionStarted}, then per Redis attempt {@link Acquisition#attempted()}, then at
 * most one {@link Acquisition#granted} (before the caller learns it has the lock), then {@link Acquisition#ended}.
 * For one hold: a {@code granted} or {@link #handedOff} begins it (again a {@code granted} for each re-entry); it ends
 * with exactly one of {@link #holdReleased}, {@link #holdLost} or {@link #holdDiscarded}, which may be reported on
 * another thread before the {@code granted} that began it, when the hold ends at once (check
 * {@link Hold#holdCount()}).
 * For one permit acquisition (either semaphore): {@link #permitAcquisitionStarted}, for a leased permit
 * {@link #permitGranted}, then the returned {@link Acquisition}'s {@link Acquisition#ended ended}, then
 * {@link #permitAcquisitionEnded}. For one latch await: {@link #latchAwaitStarted}, then its {@code Acquisition}'s
 * {@code ended}, then {@link #latchAwaitEnded}. The {@code Acquisition} of a permit acquisition or a latch await hears
 * only its {@code ended}: no {@link Acquisition#attempted()} and no {@link Acquisition#granted} (neither is a hold).
 */
public interface LockEventListener {

    /**
     * An acquisition started: one call of {@code lock}, {@code tryLock}, {@code lockInterruptibly} or their async
     * twins (a re-entry included).
     *
     * @param kind     the kind of the lock
     * @param lockName the lock's name
     * @param ownerId  the acquiring owner (the thread id for the sync methods)
     * @return the object told the rest of this acquisition's events, or {@link Acquisition#IGNORED} (the default)
     *         when the listener does not follow it; never null
     */
    default Acquisition acquisitionStarted(LockKind kind, String lockName, long ownerId) {
        return Acquisition.IGNORED;
    }

    /**
     * A releasing owner moved the lock straight to an owner of this client that waited for it (one script call
     * instead of a release and a new acquisition); {@code receiver} is the waiting owner's new hold. The receiver's
     * acquisition then ends {@link Outcome#ACQUIRED} without a {@link Acquisition#granted} of its own.
     */
    default void handedOff(Hold receiver) {
    }

    /** The owner released the last acquisition of {@code hold}: the hold ended normally. */
    default void holdReleased(Hold hold) {
    }

    /**
     * {@code hold} was lost before its release; reported once, and to the client's {@link LeaseLostListener}s too
     * (later, on the client's executor).
     */
    default void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
    }

    /**
     * {@code hold} ended otherwise: force-unlocked by this client, found not held when released, or dropped after a
     * release whose outcome is unknown.
     */
    default void holdDiscarded(Hold hold) {
    }

    /**
     * A watchdog renewal call, which renews a batch of holds in one script call, answered ({@code ok}) or failed
     * (it is retried).
     */
    default void renewalCall(boolean ok) {
    }

    /**
     * A renewal call extended {@code hold}'s lease ({@code ok}), or failed for it. A hold the call found gone is
     * reported through {@link #holdLost} instead.
     */
    default void holdRenewed(Hold hold, boolean ok) {
    }

    /**
     * An acquisition of a {@link DistributedSemaphore} or a {@link LeasedSemaphore} of this client started: one call
     * of {@code acquire} or {@code tryAcquire}, sync or async, whatever the number of permits. Reported on the caller's
     * thread, before the first attempt, so that a listener may start a trace span there (the caller's current span is
     * its parent).
     *
     * @param semaphoreName the semaphore's name
     * @param leased        whether it is a {@link LeasedSemaphore}
     * @return the object told how this acquisition ends (only {@link Acquisition#ended}, called once on the thread that
     *         completes the acquisition, just before {@link #permitAcquisitionEnded}), or {@link Acquisition#IGNORED}
     *         (the default) when the listener does not follow it; never null
     */
    default Acquisition permitAcquisitionStarted(String semaphoreName, boolean leased) {
        return Acquisition.IGNORED;
    }

    /**
     * An acquisition of a {@link DistributedSemaphore} or a {@link LeasedSemaphore} of this client ended (any
     * {@code acquire} or {@code tryAcquire}, sync or async, whatever the number of permits). Reported on the thread
     * that completes the acquisition, at about the time the caller learns the outcome (possibly just after).
     *
     * @param semaphoreName the semaphore's name
     * @param leased        whether it is a {@link LeasedSemaphore} (its grant was reported by {@link #permitGranted}
     *                      just before)
     * @param outcome       {@link Outcome#ACQUIRED}, {@link Outcome#TIMED_OUT} (not granted within the wait),
     *                      {@link Outcome#INTERRUPTED} (interrupted or cancelled) or {@link Outcome#FAILED}
     * @param waitNanos     from the call to the outcome
     */
    default void permitAcquisitionEnded(String semaphoreName, boolean leased, Outcome outcome, long waitNanos) {
    }

    /**
     * Redis granted a leased permit to this client (reported before the caller receives it; a
     * {@link #permitReleased} follows at once when the caller gave up meanwhile): the client holds it until exactly one
     * {@link #permitReleased} or {@link #permitLost} of the same id (which may come on another thread, even before the
     * acquisition's {@link #permitAcquisitionEnded}).
     *
     * @param permitId the permit's id ({@link Permit#id()})
     */
    default void permitGranted(String semaphoreName, String permitId) {
    }

    /**
     * A leased permit of this client is being given back: by its holder ({@link Permit#release()} or its twins), or by
     * the client when the caller gave up as it was granted.
     */
    default void permitReleased(String semaphoreName, String permitId) {
    }

    /**
     * A leased permit of this client was lost before its release; reported once, and to the client's
     * {@link LeaseLostListener}s too.
     */
    default void permitLost(String semaphoreName, String permitId, LeaseLostEvent.Reason reason) {
    }

    /**
     * An {@code await} of a {@link DistributedCountDownLatch} of this client started (any of its forms, sync or async).
     * Reported on the caller's thread, before the latch is first read.
     *
     * @param latchName the latch's name
     * @return the object told how this await ends (only {@link Acquisition#ended}, called once on the thread that
     *         completes the await, just before {@link #latchAwaitEnded}; {@link Outcome#ACQUIRED} when the latch
     *         opened), or {@link Acquisition#IGNORED} (the default) when the listener does not follow it; never null
     */
    default Acquisition latchAwaitStarted(String latchName) {
        return Acquisition.IGNORED;
    }

    /**
     * An {@code await} of a {@link DistributedCountDownLatch} of this client ended: {@link Outcome#ACQUIRED} when the
     * latch opened (count zero), {@link Outcome#TIMED_OUT} when its wait ran out, {@link Outcome#INTERRUPTED} or
     * {@link Outcome#FAILED} (the latch expired or was deleted under it included).
     */
    default void latchAwaitEnded(String latchName, Outcome outcome, long waitNanos) {
    }

    /** A {@code countDown} of a {@link DistributedCountDownLatch} of this client was sent and answered. */
    default void latchCountedDown(String latchName) {
    }

    /**
     * A {@link LeaderElection} of this client won a term of election {@code electionName}, with fencing token
     * {@code epoch} ({@link LeaderTerm#epoch()}). Reported on the election's loop thread, once per term, before its
     * {@link LeaderListener}s hear of it; exactly one {@link #leaderRevoked} of the same term follows.
     */
    default void leaderElected(String electionName, long epoch) {
    }

    /**
     * The term of epoch {@code epoch} of election {@code electionName} was revoked (it is invalid from here; its hold
     * is released after its task drained). Reported once per {@link #leaderElected}, on the election's loop thread.
     *
     * @param termNanos from the win (the sending of the winning attempt) to the revocation
     */
    default void leaderRevoked(String electionName, long epoch, LeaderTerm.Cause cause, long termNanos) {
    }

    /**
     * A renewal of a leader's term was answered ({@code ok}: Redis extended the lease) or failed (Redis unavailable
     * or slow; the next one is tried a retry period later). A renewal that found the hold gone is reported as a
     * {@link #leaderRevoked} with {@link LeaderTerm.Cause#LEASE_LOST} instead.
     */
    default void leaderRenewed(String electionName, boolean ok) {
    }

    /**
     * One hold of this client as events report it: an owner's hold on one lock, from its first acquisition (or the
     * hand-off that began it) to its end. Events about one hold carry the same object, so it may serve as a key in
     * an identity-based map; it is not a snapshot: {@link #holdCount()} changes as the owner re-enters and releases.
     */
    interface Hold {
        /** @return the lock's name */
        String lockName();

        /** @return the kind of the lock whose acquisition began this hold */
        LockKind kind();

        /** @return the owner (a thread id for the sync methods) */
        long ownerId();

        /** @return how many acquisitions the hold counts now (re-entries included); 0 once it has ended */
        int holdCount();
    }

    /**
     * The events of one acquisition after its start (of a lock, of permits, or a latch await); see
     * {@link LockEventListener} for the contract.
     */
    interface Acquisition {
        /** Follows nothing: what a listener returns for acquisitions it does not follow. */
        Acquisition IGNORED = new Acquisition() {
            @Override
            public String toString() {
                return "Acquisition.IGNORED";
            }
        };

        /** An attempt is being sent to Redis (none when the lock is handed over by another owner of the client). */
        default void attempted() {
        }

        /**
         * Redis granted the lock to this acquisition: a new hold or a re-entry of {@code hold}. Reported before the
         * caller learns of it.
         */
        default void granted(Hold hold) {
        }

        /**
         * How the acquisition ended; called once.
         *
         * @param failure the exception for {@link Outcome#FAILED} (a {@link LockException}, or the
         *                {@link IllegalMonitorStateException} of a refused read-to-write upgrade); null otherwise (for a
         *                permit acquisition or a latch await, a {@link LockException} such as the
         *                {@link LockLostException} of a latch whose count Redis lost)
         */
        default void ended(Outcome outcome, Throwable failure) {
        }
    }

    /** How an acquisition ended (of a lock, of permits, or a latch await). */
    enum Outcome {
        /** The lock is held (the permits are granted; the latch opened). */
        ACQUIRED,
        /** Not acquired within its wait (a single {@code tryLock()} that found the lock held included). */
        TIMED_OUT,
        /** The caller stopped waiting: interrupted, or its future cancelled. */
        INTERRUPTED,
        /** Redis failed, the client closed, or the call was refused (a read-to-write upgrade). */
        FAILED
    }
}
