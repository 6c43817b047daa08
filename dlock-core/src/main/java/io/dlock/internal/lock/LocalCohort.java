package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * What one client knows about one exclusive lock beyond Redis: which of its own owners holds it, and which of its
 * owners wait behind that one. It lets the client (a) skip Redis attempts that are certain to fail because another
 * owner of the same client holds the lock, and (b) hand the lock from a releasing owner straight to the next local
 * waiter in one script call, instead of a release, a pub/sub message and a new acquire.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Redis stays the authority. {@link #holder} is a belief that only ever makes this client <em>wait</em>
 *       (never enter): it is set when Redis grants an owner the lock and cleared when that owner releases it, loses it
 *       or the client force-unlocks it; a holder whose {@link Hold} is no longer live counts as none.</li>
 *   <li>A local waiter asks Redis itself at its deadline (one last attempt, as any waiter) and once its holder's
 *       known lease has ended. While owners wait, the registry checks every {@code recheckNanos} that the holder's
 *       field still exists in Redis ({@link #holdToVerify}, {@link #holderGone}): a lock freed behind the holder's
 *       back (force-unlocked by another client, deleted, evicted) costs the waiters at most that long, never
 *       exclusion. A waiter's own timer never sleeps longer than {@code recheckNanos} either.</li>
 *   <li>Waiters are served first in, first out. Consecutive hand-offs are capped ({@code maxHandoffs}): then the
 *       lock is released in Redis and published as usual, so that other clients (which wait on the pub/sub channel)
 *       get their chance.</li>
 *   <li>Other clients get that chance for real: when a release's unlock message reached subscribers other than this
 *       client ({@link #released(long, boolean, long)}), this client's owners give them a head start of
 *       {@code headStartNanos} before any of them asks Redis again (their attempts queue here meanwhile; a waiter
 *       woken by the message itself, a single {@code tryLock()} and a grant in Redis are not held back). Without it,
 *       a waiter of this client, awake and next in line, would send its attempt the moment the release reply came
 *       back, and nearly always beat a waiter of another client, which first has to receive the message, wake up
 *       and send its own: a client with several busy threads would keep the lock to itself for seconds. With it, a
 *       client keeps a lock that others wait for for at most {@code maxHandoffs + 1} critical sections in a row,
 *       give or take the other clients' reaction time.</li>
 *   <li>A waiter's turn completes exactly once, and only after the waiter left every place that could complete it:
 *       the queue, or the hand-off reservation ({@link #reserveHandoff}). A hand-off's target is reserved before its
 *       script is sent and stays reserved until the script's outcome is handled, so while Redis may already hold the
 *       lock for it, no other event (unlock message, deadline, leave, busy attempt, clear) can send it to Redis.
 *       Hence an owner of this client believes it holds the lock only on Redis's word: its own attempt's reply, or
 *       the reply of the hand-off script reserved for it; never both for one grant, and never a grant that this
 *       client then takes back behind the owner's back. At most one hand-off is under way per lock.</li>
 *   <li>All state is guarded by this object's monitor, never held across a Redis call or a wait.</li>
 * </ul>
 */
final class LocalCohort {
    /** How a local wait ends. */
    enum Turn {
        /** The lock was handed to this waiter's owner (recorded with the renewer): it holds it, Redis was not asked. */
        HANDED_OVER,
        /** The waiter should attempt in Redis (holder gone, time up, caller gone, hand-off failed). */
        ATTEMPT_IN_REDIS
    }

    private static final long NONE = Long.MIN_VALUE;

    /** One owner of this client waiting behind a local holder. */
    static final class Waiter {
        final long ownerId;
        final long leaseMs;
        /** Completes exactly once, when the waiter leaves the queue or its reserved hand-off is settled. */
        final CompletableFuture<Turn> turn = new CompletableFuture<>();
        /** When the waiter's caller stops waiting ({@link System#nanoTime} scale), or null without limit. */
        private final Long deadlineNanos;
        private volatile Runnable cancelTimeout = () -> { };

        Waiter(long ownerId, long leaseMs, Long deadlineNanos) {
            this.ownerId = ownerId;
            this.leaseMs = leaseMs;
            this.deadlineNanos = deadlineNanos;
        }
    }

    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;
    private final long headStartNanos;

    private long holder = NONE;
    private Hold holderHold;
    private int handoffsInARow;
    private final Deque<Waiter> waiters = new ArrayDeque<>();
    /**
     * The waiter a hand-off script was sent for, until its outcome is known. It is out of {@link #waiters}: nothing
     * but that outcome ({@link #handedOff}, {@link #handoffFailed}) ends its wait.
     */
    private Waiter handingOff;
    /**
     * While other clients have their head start after a release that woke them: owners of this client queue instead
     * of asking Redis, and the first of them asks when it ends ({@link #headStartOver}).
     */
    private boolean givingWay;
    private Runnable cancelHeadStart = () -> { };
    /** Unlock messages this client received on the lock's channel since this cohort exists. */
    private long unlockMessages;
    /** A head start also ends once {@link #unlockMessages} reaches this: the lock went through Redis once more. */
    private long headStartEndsAtMessage;
    /** Set once this cohort left its registry; callers holding it then fetch a fresh one. */
    private boolean retired;

    /**
     * @param recheckNanos   the longest a waiter trusts a local holder before asking Redis again
     * @param maxHandoffs    the most hand-offs in a row before the lock goes back through Redis
     * @param headStartNanos how long owners of this client hold back after a release that woke other clients' waiters
     */
    LocalCohort(TaskScheduler scheduler, LongSupplier nanoTime, long recheckNanos, int maxHandoffs,
                long headStartNanos) {
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.recheckNanos = recheckNanos;
        this.maxHandoffs = maxHandoffs;
        this.headStartNanos = headStartNanos;
    }

    /**
     * Queues {@code ownerId} when another owner of this client holds the lock, or while other clients have their
     * head start.
     *
     * @param maxWaitNanos the caller's time left ({@code Long.MAX_VALUE} without limit)
     * @return the waiter's turn, or null when no other local owner holds the lock (attempt in Redis); a retired
     *         cohort also answers null
     */
    synchronized Waiter queueBehindLocalHolder(long ownerId, long leaseMs, long maxWaitNanos) {
        if (retired || !(givingWay || hasLiveHolder()) || holder == ownerId) {
            return null;
        }
        long now = nanoTime.getAsLong();
        Waiter waiter = new Waiter(ownerId, leaseMs, maxWaitNanos == Long.MAX_VALUE ? null : now + maxWaitNanos);
        waiters.addLast(waiter);
        scheduleCheck(waiter, now);
        return waiter;
    }

    /** Wakes {@code waiter} at its deadline, its holder's known lease end or the recheck, whichever comes first. */
    private void scheduleCheck(Waiter waiter, long now) {
        long sleep = holderHold == null ? recheckNanos : Math.min(holderHold.validForNanos(now), recheckNanos);
        if (waiter.deadlineNanos != null) {
            sleep = Math.min(sleep, waiter.deadlineNanos - now);
        }
        waiter.cancelTimeout = scheduler.schedule(() -> check(waiter), Math.max(0, sleep));
    }

    /**
     * A waiter's timer: it keeps its place while a live local holder remains (or other clients have their head start)
     * and its caller still waits; otherwise it leaves the queue and asks Redis (which also settles its deadline).
     */
    private void check(Waiter waiter) {
        synchronized (this) {
            if (!waiters.contains(waiter)) {
                return;
            }
            long now = nanoTime.getAsLong();
            boolean timeLeft = waiter.deadlineNanos == null || waiter.deadlineNanos - now > 0;
            if (timeLeft && (givingWay || hasLiveHolder())) {
                scheduleCheck(waiter, now);
                return;
            }
            waiters.remove(waiter);
        }
        finish(waiter, Turn.ATTEMPT_IN_REDIS);
    }

    /**
     * Takes {@code waiter} out of the queue (timeout, abandon) unless a hand-off already chose it: then the hand-off's
     * outcome ends its wait, and if that is the lock, the waiter's own acquisition gives it back (its caller is gone).
     */
    void leave(Waiter waiter) {
        synchronized (this) {
            if (!waiters.remove(waiter)) {
                return;
            }
        }
        finish(waiter, Turn.ATTEMPT_IN_REDIS);
    }

    /**
     * Redis granted {@code ownerId} the lock (a first hold or a re-entry).
     *
     * @return false if this cohort is retired (the caller records it in the current one)
     */
    synchronized boolean acquired(long ownerId, Hold hold) {
        if (retired) {
            return false;
        }
        if (holder != ownerId) {
            handoffsInARow = 0;
        }
        stopGivingWay();
        holder = ownerId;
        holderHold = hold;
        return true;
    }

    /** @return whether an owner of this client other than {@code ownerId} holds the lock, as far as it knows */
    synchronized boolean heldByAnotherLocalOwner(long ownerId) {
        return !retired && hasLiveHolder() && holder != ownerId;
    }

    /**
     * Reserves the waiter the lock is to be handed to when {@code ownerId} releases its last acquisition: the first
     * in line, taken out of the queue <em>before</em> the hand-off script is sent. Null when nobody waits,
     * {@code ownerId} is not the known holder, this is not its last acquisition, a hand-off is already under way or
     * the hand-offs in a row are used up.
     *
     * <p>Why before: once the script has run, Redis holds the lock for the waiter, whatever this client does next.
     * If the waiter were still queued until the reply is handled, anything that ends a wait in between (an unlock
     * message whose check finds the releaser's field gone because the script moved it, the waiter's deadline, its
     * caller giving up, a busy attempt of another owner) would send it to Redis, where its attempt adopts the field
     * the hand-off gave it and it enters; the hand-off's reply, finding it gone from the queue, would then release
     * "its" hold on its behalf, and Redis would be free while the waiter is inside (issue 18: two owners at once). A
     * reserved waiter's wait ends only with the hand-off's outcome, so exactly one party acts on the hold: the
     * waiter's own acquisition, which gives it back itself if its caller is gone by then.
     *
     * <p>The caller must settle the reservation with {@link #handedOff} or {@link #handoffFailed}.
     */
    synchronized Waiter reserveHandoff(long ownerId, Hold hold) {
        if (retired || holder != ownerId || hold == null || hold.acquisitions() != 1
                || handingOff != null || handoffsInARow >= maxHandoffs) {
            return null;
        }
        Waiter next = waiters.pollFirst();
        if (next != null) {
            next.cancelTimeout.run();
            handingOff = next;
        }
        return next;
    }

    /** The hand-off script moved the lock to the {@link #reserveHandoff reserved} {@code waiter}, recorded as {@code hold}. */
    void handedOff(Waiter waiter, Hold hold) {
        synchronized (this) {
            settle(waiter);
            holder = waiter.ownerId;
            holderHold = hold;
            handoffsInARow++;
        }
        finish(waiter, Turn.HANDED_OVER);
    }

    /** The hand-off did not happen (or its outcome is unknown): the {@link #reserveHandoff reserved} waiter asks Redis. */
    void handoffFailed(Waiter waiter) {
        synchronized (this) {
            settle(waiter);
        }
        finish(waiter, Turn.ATTEMPT_IN_REDIS);
    }

    private void settle(Waiter waiter) {
        if (handingOff != waiter) {
            throw new IllegalStateException("hand-off to owner " + waiter.ownerId + " was not reserved");
        }
        handingOff = null;
    }

    /** @return whether a hand-off script is under way (its outcome not handled yet) */
    synchronized boolean handingOff() {
        return handingOff != null;
    }

    /**
     * {@code ownerId} no longer holds the lock (lost, or not held after all): as {@link #released(long, boolean, long)}
     * without other clients to give way to.
     */
    void released(long ownerId) {
        released(ownerId, false, 0);
    }

    /**
     * {@code ownerId} no longer holds the lock (released in Redis, lost, or not held after all): if it was the
     * holder, the first waiter attempts in Redis now, or, when {@code othersWoken}, once other clients had their head
     * start; the others stay queued for whoever gets it next. The head start lasts {@code headStartNanos} at most,
     * and ends as soon as this client has received {@code endsAtMessage} unlock messages on the lock's channel
     * ({@link #unlockMessages()} before the release, plus this client's own copy of the release's message, plus
     * one): another client had the lock and released it already, and its waiters and this client's now race on equal
     * terms.
     *
     * @param othersWoken   the release's unlock message reached waiters of other clients
     * @param endsAtMessage the {@link #unlockMessages()} count that ends the head start early
     */
    void released(long ownerId, boolean othersWoken, long endsAtMessage) {
        Waiter first;
        synchronized (this) {
            if (holder != ownerId) {
                return;
            }
            holder = NONE;
            holderHold = null;
            handoffsInARow = 0;
            if (othersWoken && headStartNanos > 0 && !retired) {
                stopGivingWay();
                givingWay = true;
                headStartEndsAtMessage = endsAtMessage;
                cancelHeadStart = scheduler.schedule(this::headStartOver, headStartNanos);
                return;
            }
            first = waiters.pollFirst();
        }
        if (first != null) {
            finish(first, Turn.ATTEMPT_IN_REDIS);
        }
    }

    /** Other clients had their head start: the first waiter asks Redis (unless an owner of this client holds it). */
    private void headStartOver() {
        Waiter first;
        synchronized (this) {
            if (!givingWay) {
                return;
            }
            givingWay = false;
            if (hasLiveHolder()) {
                return;
            }
            first = waiters.pollFirst();
        }
        if (first != null) {
            finish(first, Turn.ATTEMPT_IN_REDIS);
        }
    }

    /** @return how many unlock messages on the lock's channel this client received since this cohort exists */
    synchronized long unlockMessages() {
        return unlockMessages;
    }

    /** An unlock message arrived on the lock's channel: counted; it may end a head start ({@link #released}). */
    void unlockMessageArrived() {
        synchronized (this) {
            unlockMessages++;
            if (!givingWay || unlockMessages < headStartEndsAtMessage) {
                return;
            }
            cancelHeadStart.run();
        }
        headStartOver();
    }

    /** Ends a head start early (this client got the lock after all, or everybody goes to Redis anyway). */
    private void stopGivingWay() {
        if (givingWay) {
            givingWay = false;
            cancelHeadStart.run();
        }
    }

    /**
     * A waiter was told to attempt in Redis but no longer will (its caller gave up meanwhile): the next waiter gets
     * that turn, unless a live local holder exists (then it stays queued behind that one).
     */
    void passOn() {
        Waiter next;
        synchronized (this) {
            if (givingWay || hasLiveHolder()) {
                return;
            }
            next = waiters.pollFirst();
        }
        if (next != null) {
            finish(next, Turn.ATTEMPT_IN_REDIS);
        }
    }

    /** Forgets the holder and sends every waiter to Redis (force-unlock by this client). */
    void clear() {
        List<Waiter> all;
        synchronized (this) {
            holder = NONE;
            holderHold = null;
            handoffsInARow = 0;
            stopGivingWay();
            all = List.copyOf(waiters);
            waiters.clear();
        }
        all.forEach(waiter -> finish(waiter, Turn.ATTEMPT_IN_REDIS));
    }

    /**
     * A Redis attempt found the lock busy. If no owner of this client holds it, another client does: the local
     * queue would only delay waiters, so all of them go to Redis (and its pub/sub wake-ups) instead. A head start
     * ends there: another client took its chance.
     */
    void busyInRedis() {
        List<Waiter> all;
        synchronized (this) {
            if (hasLiveHolder()) {
                return;
            }
            stopGivingWay();
            if (waiters.isEmpty()) {
                return;
            }
            all = List.copyOf(waiters);
            waiters.clear();
        }
        all.forEach(waiter -> finish(waiter, Turn.ATTEMPT_IN_REDIS));
    }

    /**
     * @return the live holder's hold while owners wait behind it (the registry checks it is still in Redis), else
     *         null
     */
    synchronized Hold holdToVerify() {
        return !retired && handingOff == null && !waiters.isEmpty() && hasLiveHolder() ? holderHold : null;
    }

    /**
     * Redis no longer has {@code hold} (checked after it was granted): if it is still the holder's, forget the
     * holder and send every waiter to Redis. A later grant (a new hold) is not affected, and neither is a hold being
     * handed off: the check may have run after the hand-off script moved the field, and the script's outcome says
     * who holds the lock now.
     */
    void holderGone(Hold hold) {
        List<Waiter> all;
        synchronized (this) {
            if (holderHold != hold || handingOff != null) {
                return;
            }
            holder = NONE;
            holderHold = null;
            handoffsInARow = 0;
            stopGivingWay();
            all = List.copyOf(waiters);
            waiters.clear();
        }
        all.forEach(waiter -> finish(waiter, Turn.ATTEMPT_IN_REDIS));
    }

    /**
     * Retires this cohort if nobody waits and no owner holds the lock as far as this client knows (a hold that ran
     * out or was lost counts as none); a retired cohort answers nothing and is not used again.
     */
    synchronized boolean retireIfIdle() {
        if (!hasLiveHolder() && waiters.isEmpty() && handingOff == null && !givingWay) {
            retired = true;
        }
        return retired;
    }

    synchronized int waiterCount() {
        return waiters.size() + (handingOff == null ? 0 : 1);
    }

    /**
     * The state as a string (holder, streak, waiters in order, reserved hand-off target), for tests that explore
     * interleavings and must tell states apart.
     */
    synchronized String describe() {
        StringBuilder b = new StringBuilder("holder=").append(holder == NONE ? "none" : Long.toString(holder))
                .append(" streak=").append(handoffsInARow).append(" waiters=[");
        for (Waiter waiter : waiters) {
            b.append(waiter.ownerId).append(' ');
        }
        b.append("] handingOff=").append(handingOff == null ? "none" : Long.toString(handingOff.ownerId));
        b.append(givingWay ? " givingWay" : "");
        return b.append(retired ? " retired" : "").toString();
    }

    private boolean hasLiveHolder() {
        if (holder == NONE) {
            return false;
        }
        if (holderHold.validForNanos(nanoTime.getAsLong()) > 0) {
            return true;
        }
        holder = NONE;
        holderHold = null;
        handoffsInARow = 0;
        return false;
    }

    private static void finish(Waiter waiter, Turn value) {
        waiter.cancelTimeout.run();
        waiter.turn.complete(value);
    }
}
