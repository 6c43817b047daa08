package io.dlock.internal.election;

import io.dlock.FencedLock;
import io.dlock.LeaderElection;
import io.dlock.LeaderElectionSettings;
import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import io.dlock.LeaderTerm.Cause;
import io.dlock.LockException;
import io.dlock.LockLostException;
import io.dlock.internal.Errors;
import io.dlock.LeaderChange;
import io.dlock.LeaderObserver;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.lock.ElectionLock;
import io.dlock.internal.lock.LeaderRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The {@link LeaderElection} on the fenced lock. One loop thread per started election makes every state change: it
 * competes for the lock ({@code tryLockAndGetTokenAsync} with a wait of one retry period, woken by the unlock message;
 * the token is above every epoch the candidate has seen, {@link LeaderRecord#seen}), renews the term every retry
 * period ({@link ElectionLock#renew}: confirmed on replicas too with {@code syncReplicas}), steps down when the renew
 * deadline passes, and ends a
 * term in the one order: revoke (the term is invalid from here), tell the listeners, interrupt the task and keep
 * renewing while it drains (up to the stop timeout), then release the lock. Calls into Redis are async, so the loop
 * only parks and is never held by a silent Redis; {@link ElectedTerm#isValid()} needs no loop at all (it is counted
 * on the clock), so a term is invalid at its step-down point even when the loop runs late.
 *
 * <p>Listeners run on one event thread of the election, in order; {@link #close()} waits for them.
 */
public final class FencedLeaderElection implements LeaderElection {
    private static final Logger log = LoggerFactory.getLogger(FencedLeaderElection.class);

    private final String name;
    private final ElectionLock election;
    private final FencedLock lock;
    /** Starts an observation of who leads ({@link LeaderObservers}) for the listeners' leaderChanged and the floor. */
    private final Function<LeaderObserver, LeaderObserver.Subscription> observe;
    /** The observation while started, or null; guarded by {@link #monitor}. */
    private LeaderObserver.Subscription observation;
    private final LeaderElectionSettings settings;
    private final LongSupplier nanoTime;
    private final Clock wall;
    /** How long a release may take: a command timeout and some. */
    private final long releaseWaitMs;
    private final Runnable onClose;
    /** The client's event listeners: told of each term won and revoked and each renewal, on the loop thread. */
    private final EventSink eventSink;
    private final List<LeaderListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicReference<LeaderTask> task = new AtomicReference<>();
    private final ExecutorService events;
    private final Object monitor = new Object();

    /** Guarded by {@link #monitor}. */
    private Thread loop;
    private volatile boolean closing;
    private volatile boolean closed;
    private volatile boolean resignRequested;
    /** The term held (valid, or draining after its revocation), or null; written by the loop thread only. */
    private volatile ElectedTerm term;
    /** The task thread of {@link #term}, or null. */
    private volatile Thread taskThread;
    /** Completes when the task of {@link #term} has returned (its last action before it wakes the loop). */
    private volatile CompletableFuture<Void> taskDone = CompletableFuture.completedFuture(null);
    /** How the task of the current term ended, or null while it runs (or there is none). */
    private volatile Cause taskEnd;
    /** The event thread, once made: a listener that calls back into the election runs there. */
    private volatile Thread eventThread;
    /** Completes when the loop thread has ended (released, listeners told). */
    private final CompletableFuture<Void> loopEnded = new CompletableFuture<>();
    /** Completes when a resign asked for has released the lock. */
    private volatile CompletableFuture<Void> resigned = CompletableFuture.completedFuture(null);

    /**
     * @param election       the candidate's lock: the fenced lock with its leader record, for an owner of its own
     * @param nanoTime       the client's monotonic clock
     * @param commandTimeout the client's command timeout: a release is waited for that long and a little more
     * @param onClose        run once when the election closed (the client forgets it)
     * @param eventSink      the client's event listeners
     * @param observe        starts observing who leads the election's name
     */
    public FencedLeaderElection(String name, ElectionLock election, LeaderElectionSettings settings,
                                LongSupplier nanoTime, Clock wall, Duration commandTimeout, Runnable onClose,
                                EventSink eventSink, Function<LeaderObserver, LeaderObserver.Subscription> observe) {
        this.name = name;
        this.election = election;
        this.lock = election.lock();
        this.observe = observe;
        this.settings = settings;
        this.nanoTime = nanoTime;
        this.wall = wall;
        this.releaseWaitMs = commandTimeout.toMillis() + 500;
        this.onClose = onClose;
        this.eventSink = eventSink;
        this.events = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "dlock-election-events-" + name);
            thread.setDaemon(true);
            eventThread = thread;
            return thread;
        });
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public void start() {
        synchronized (monitor) {
            if (closing) {
                throw new LockException(name, "leader election '" + name + "' is closed", null);
            }
            if (loop != null) {
                return;
            }
            loop = new Thread(this::run, "dlock-election-" + name);
            loop.setDaemon(true);
            loop.start();
            observation = observe.apply(this::leaderChanged);
        }
    }

    /**
     * Who leads changed (on the client's executor): every epoch read raises the candidate's floor, and the listeners
     * hear of it on the event thread, never after {@link #close()} shut it down.
     */
    private void leaderChanged(LeaderChange change) {
        change.current().ifPresent(leader -> election.record().seen(leader.epoch()));
        if (closed) {
            return;
        }
        post(() -> {
            for (LeaderListener listener : listeners) {
                if (closed) {
                    return;
                }
                try {
                    listener.leaderChanged(change);
                } catch (RuntimeException e) {
                    log.error("leader election '{}': listener {} failed in leaderChanged", name, listener, e);
                }
            }
        });
    }

    @Override
    public boolean isLeader() {
        ElectedTerm current = term;
        return current != null && current.isValid();
    }

    @Override
    public Optional<LeaderTerm> currentTerm() {
        return Optional.ofNullable(term);
    }

    @Override
    public Optional<LeaderTerm> awaitLeadership(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("leader election '" + name + "': timeout " + timeout + " is negative");
        }
        long deadline = nanoTime.getAsLong() + timeout.toNanos();
        synchronized (monitor) {
            while (true) {
                ElectedTerm current = term;
                if (current != null && current.isValid()) {
                    return Optional.of(current);
                }
                long left = deadline - nanoTime.getAsLong();
                if (left <= 0 || closing) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
        }
    }

    @Override
    public void resign() {
        ElectedTerm current = term;
        if (current == null || current.isRevoked() || closing) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        resigned = done;
        resignRequested = true;
        wakeLoop();
        if (onOwnThread()) {
            return; // a listener or the task: the loop ends the term once the caller returns, so it cannot wait
        }
        try {
            done.get(settings.stopTimeout().toMillis() + releaseWaitMs + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("leader election '{}': resign did not finish in time: {}", name, e.toString());
        }
    }

    @Override
    public void runWhileLeader(LeaderTask leaderTask) {
        Objects.requireNonNull(leaderTask, "task");
        if (!task.compareAndSet(null, leaderTask)) {
            throw new IllegalStateException("leader election '" + name + "' has a task already");
        }
    }

    @Override
    public void addListener(LeaderListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeListener(LeaderListener listener) {
        listeners.remove(listener);
    }

    /**
     * Every caller waits for the loop to end (its term revoked, the task stopped, the lock released, the listeners
     * told); the first to get past that shuts the event thread down. So a second, concurrent close never pulls the
     * event thread from under the loop.
     */
    @Override
    public void close() {
        Thread running;
        LeaderObserver.Subscription observing;
        synchronized (monitor) {
            closing = true;
            running = loop;
            observing = observation;
            observation = null;
            monitor.notifyAll();
        }
        if (observing != null) {
            observing.close();
        }
        if (running != null) {
            LockSupport.unpark(running);
        }
        if (running != null && !onOwnThread()) {
            try {
                loopEnded.get(settings.stopTimeout().toMillis() + releaseWaitMs + 1000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                log.warn("leader election '{}': closing did not finish in time: {}", name, e.toString());
            }
        }
        synchronized (monitor) {
            if (closed) {
                return;
            }
            closed = true;
        }
        events.shutdown();
        if (Thread.currentThread() != eventThread) {
            try {
                events.awaitTermination(releaseWaitMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        onClose.run();
    }

    /**
     * @return whether the caller is a listener (the event thread) or the task of a term: it cannot wait for the loop,
     *         which waits for the task and posts to the event thread
     */
    private boolean onOwnThread() {
        Thread current = Thread.currentThread();
        return current == eventThread || current == taskThread;
    }

    // ---- the loop thread ------------------------------------------------------------------------------------------
    // Only the loop thread changes the state below and {@link #term}. close() and resign() set their flag, then unpark
    // it: a flag set just before it parks leaves the park's permit, so no request is missed.

    /** The candidate's acquisition in flight, or null. */
    private CompletableFuture<Long> attempt;
    private long attemptSentAt;
    /** The leader's renewal in flight, or null. */
    private CompletableFuture<Void> renewal;
    private long renewalSentAt;
    private long nextRenewAt;
    /** Whether the last renewal answered with a failure other than "gone" (Redis unavailable or slow). */
    private boolean renewalFailed;
    /** A candidate that resigned or whose task ended competes again from here. */
    private long backoffUntil;
    /** When the winning attempt of {@link #term} was sent: a term's length, for the event listeners. */
    private long termStartedAt;

    private void run() {
        backoffUntil = nanoTime.getAsLong();
        try {
            while (true) {
                ElectedTerm current = term;
                boolean go = current == null ? compete() : lead(current);
                if (!go) {
                    return;
                }
            }
        } catch (Throwable e) {
            log.error("leader election '{}': the election loop failed", name, e);
            ElectedTerm current = term;
            if (current != null) {
                end(current, Cause.CLOSED);
                finish(current);
            }
        } finally {
            synchronized (monitor) {
                monitor.notifyAll();
            }
            // after every listener call queued before: close() returns once the listeners have heard
            post(() -> loopEnded.complete(null));
        }
    }

    /**
     * One step of a candidate without a term: start an acquisition (after the back-off), or take its outcome.
     *
     * @return false when the loop ends (closing)
     */
    private boolean compete() throws Exception {
        long now = nanoTime.getAsLong();
        if (closing) {
            if (attempt != null && !attempt.cancel(false) && !attempt.isCompletedExceptionally()
                    && attempt.join() != null) {
                lock.unlockAsync().handle((ok, error) -> null).get(releaseWaitMs, TimeUnit.MILLISECONDS);
            } else if (attempt != null) {
                // cancelled: a grant that crossed the cancel is given back on its way; close() returns after it
                try {
                    election.settled().get(releaseWaitMs, TimeUnit.MILLISECONDS);
                } catch (TimeoutException late) {
                    log.warn("leader election '{}': a late grant was not given back within {} ms of close; it "
                            + "expires with its lease", name, releaseWaitMs);
                }
            }
            attempt = null;
            return false;
        }
        if (attempt == null) {
            if (now - backoffUntil < 0) {
                park(backoffUntil);
                return true;
            }
            attemptSentAt = now;
            attempt = Errors.call(() -> lock.tryLockAndGetTokenAsync(settings.retryPeriod().toMillis(),
                    settings.lease().toMillis(), TimeUnit.MILLISECONDS));
            attempt.whenComplete((token, error) -> wakeLoop());
            return true;
        }
        if (!attempt.isDone()) {
            park(now + 2 * settings.retryPeriod().toNanos());
            return true;
        }
        Throwable error = attempt.handle((token, e) -> e).join();
        Long token = error == null ? attempt.join() : null;
        attempt = null;
        if (error != null) {
            log.debug("leader election '{}': an attempt failed: {}", name, error.toString());
            backoffUntil = nanoTime.getAsLong() + settings.retryPeriod().toNanos();
        } else if (token != null) {
            renewal = null;
            renewalFailed = false;
            nextRenewAt = attemptSentAt + settings.retryPeriod().toNanos();
            elect(token, attemptSentAt);
        }
        return true;
    }

    /**
     * One step of a leader: take a renewal's outcome, revoke when a cause came up, drain and release a revoked term,
     * send the next renewal, or park until the first of these is due.
     *
     * @return true (the loop goes on: a closing election ends once its term is released, in {@link #compete})
     */
    private boolean lead(ElectedTerm current) throws Exception {
        long now = nanoTime.getAsLong();
        if (renewal != null && renewal.isDone()) {
            Throwable error = renewal.handle((ok, e) -> e).join();
            renewal = null;
            if (error == null) {
                current.confirmed(renewalSentAt);
                renewalFailed = false;
                eventSink.get().leaderRenewed(name, true);
            } else if (isGone(error)) {
                end(current, Cause.LEASE_LOST);
            } else {
                renewalFailed = true;
                eventSink.get().leaderRenewed(name, false);
                log.debug("leader election '{}': a renewal failed: {}", name, error.toString());
            }
        }
        if (!current.isRevoked()) {
            Cause cause = closing ? Cause.CLOSED : resignRequested ? Cause.RESIGNED : taskEnd;
            if (cause == null && now - current.stepDownAt() >= 0) {
                // failed or unanswered renewals: the connection; none tried in time: this process was held up
                cause = renewalFailed || renewal != null ? Cause.CONNECTION_LOST : Cause.PAUSED;
            }
            if (cause != null) {
                end(current, cause);
            }
        }
        boolean gone = current.revocationAsync().getNow(null) == Cause.LEASE_LOST;
        if (current.isRevoked()) {
            long drainUntil = current.revokedAt() + settings.stopTimeout().toNanos();
            if (taskDone.isDone() || now - drainUntil >= 0) {
                if (renewal != null) { // its outcome no longer matters; the release goes after it
                    renewal.handle((ok, e) -> null).get(releaseWaitMs, TimeUnit.MILLISECONDS);
                    renewal = null;
                }
                Cause cause = current.revocationAsync().join();
                finish(current);
                if (cause == Cause.RESIGNED || cause == Cause.TASK_ENDED || cause == Cause.TASK_FAILED) {
                    backoffUntil = nanoTime.getAsLong() + settings.retryPeriod().toNanos();
                }
                return true;
            }
            if (gone || renewal != null || now - nextRenewAt < 0) {
                park(gone ? drainUntil : Math.min(nextRenewAt - now, drainUntil - now) + now);
                return true;
            }
        }
        if (renewal == null && now - nextRenewAt >= 0) {
            // while valid, and while a revoked term drains: nobody else may lead before the task has stopped
            renewalSentAt = now;
            nextRenewAt = now + settings.retryPeriod().toNanos();
            renewal = Errors.call(() -> election.renew(settings.lease()));
            renewal.whenComplete((ok, error) -> wakeLoop());
            return true;
        }
        long wakeAt = renewal == null ? nextRenewAt : now + settings.retryPeriod().toNanos();
        if (!current.isRevoked() && current.stepDownAt() - wakeAt < 0) {
            wakeAt = current.stepDownAt();
        }
        park(wakeAt);
        return true;
    }

    private static boolean isGone(Throwable error) {
        Throwable cause = Errors.unwrap(error);
        return cause instanceof LockLostException || cause instanceof IllegalMonitorStateException;
    }

    /** Starts a term won with {@code token}: the term, the listeners' {@code elected}, the task, the waiters. */
    private void elect(long token, long sentAt) {
        ElectedTerm won = new ElectedTerm(name, token, wall.instant(), lock, nanoTime,
                settings.renewDeadline().toNanos(), sentAt);
        taskEnd = null;
        resignRequested = false; // a request meant for the term before
        term = won;
        termStartedAt = sentAt;
        eventSink.get().leaderElected(name, token);
        post(() -> {
            for (LeaderListener listener : listeners) {
                try {
                    listener.elected(won);
                } catch (RuntimeException e) {
                    log.error("leader election '{}': listener {} failed in elected", name, listener, e);
                }
            }
        });
        LeaderTask work = task.get();
        if (work != null) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            taskDone = done;
            Thread worker = new Thread(() -> runTask(work, won, done), "dlock-leader-" + name + "-" + token);
            worker.setDaemon(true);
            taskThread = worker;
            worker.start();
        }
        synchronized (monitor) {
            monitor.notifyAll();
        }
        log.info("leader election '{}': elected, epoch {}", name, token);
    }

    private void runTask(LeaderTask work, ElectedTerm won, CompletableFuture<Void> done) {
        Cause end = Cause.TASK_ENDED;
        try {
            work.run(won);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception | Error e) {
            if (!won.isRevoked()) {
                log.error("leader election '{}': the leader's task failed in the term of epoch {}", name,
                        won.epoch(), e);
            }
            end = Cause.TASK_FAILED;
        }
        if (!won.isRevoked()) {
            taskEnd = end;
        }
        done.complete(null); // the loop may release now, without waiting for this thread to die
        wakeLoop();
    }

    /** Revokes {@code current}: invalid from here; the listeners are told; the task is interrupted. */
    private void end(ElectedTerm current, Cause cause) {
        resignRequested = false;
        if (!current.revoke(cause)) {
            return;
        }
        log.info("leader election '{}': term of epoch {} revoked ({})", name, current.epoch(), cause);
        eventSink.get().leaderRevoked(name, current.epoch(), cause, nanoTime.getAsLong() - termStartedAt);
        post(() -> {
            for (LeaderListener listener : listeners) {
                try {
                    listener.revoked(current, cause);
                } catch (RuntimeException e) {
                    log.error("leader election '{}': listener {} failed in revoked", name, listener, e);
                }
            }
        });
        Thread worker = taskThread;
        if (worker != null) {
            worker.interrupt();
        }
    }

    /** The drain is over: releases the lock unless Redis lost it, and forgets the term. */
    private void finish(ElectedTerm current) {
        if (current.revocationAsync().getNow(null) != Cause.LEASE_LOST) {
            try {
                lock.unlockAsync().get(releaseWaitMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                log.debug("leader election '{}': the release of epoch {} failed ({}); the lock ends with its lease",
                        name, current.epoch(), e.toString());
            }
        }
        taskThread = null;
        term = null;
        CompletableFuture<Void> resign = resigned;
        // after the revoked listeners queued before it
        post(() -> resign.complete(null));
    }

    /**
     * Runs {@code event} on the event thread, after the ones posted before; inline once that thread is shut down
     * (a close that timed out), so that nothing posted is lost.
     */
    private void post(Runnable event) {
        try {
            events.execute(event);
        } catch (java.util.concurrent.RejectedExecutionException closedMeanwhile) {
            event.run();
        }
    }

    private void park(long until) {
        long left = until - nanoTime.getAsLong();
        if (left > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    private void wakeLoop() {
        Thread running;
        synchronized (monitor) {
            running = loop;
        }
        if (running != null) {
            LockSupport.unpark(running);
        }
    }

    @Override
    public String toString() {
        ElectedTerm current = term;
        return "LeaderElection{" + name + (current == null ? ", candidate" : ", " + current) + "}";
    }
}
