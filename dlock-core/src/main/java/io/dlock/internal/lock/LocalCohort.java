package io.dlock.internal.lock;

import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.LocalTurn;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * What one client knows about one exclusive lock beyond Redis: which of its own owners holds it, and which of its
 * owners wait behind that one ({@link LocalLine}). It lets the client skip Redis attempts that are certain to fail
 * because another owner of the same client holds the lock, and hand the lock from a releasing owner straight to local
 * waiters in one script call ({@link HandOffRelease}). The rules, argued in docs/architecture.md §5:
 * <ul>
 *   <li>Redis stays the authority: {@link #holder} only ever makes this client <em>wait</em>, never enter; a holder
 *       whose {@link Hold} is no longer live counts as none. A waiter asks Redis itself at its deadline, once its
 *       holder's known lease ends, and at least every {@code recheckNanos}; while owners wait, the registry checks
 *       the holder's field in Redis ({@link #holdToVerify}, {@link #holderGone}).</li>
 *   <li>First in, first out; consecutive hand-offs are capped ({@code maxHandoffs}, 0 = none of any kind), and
 *       other clients woken by a release get a {@link HeadStart} once this client has kept the lock a while.</li>
 *   <li>The reservation rule: a waiter's turn completes exactly once, after it left every place that could complete
 *       it; hand-off receivers are reserved before the script is sent and only its outcome ends their wait
 *       ({@link #reserveHandoff}). At most one hand-off is under way per lock.</li>
 *   <li>All state is guarded by this object's monitor, never held across a Redis call or a wait.</li>
 * </ul>
 */
final class LocalCohort {
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;

    private final LocalHolder holder;
    private final LocalLine waiters = new LocalLine();
    /**
     * The waiters a hand-off script was sent for (one, or every waiter when the script picks among them), until its
     * outcome is known; empty when none is under way. They are out of {@link #waiters}: nothing but that outcome
     * ({@link #handedOff}, {@link #handoffFailed}) ends their wait.
     */
    private List<LocalWaiter> handingOff = List.of();
    /**
     * Other clients' head start after a release that woke them: while it runs, owners of this client queue instead
     * of asking Redis, and the first of them asks when it ends ({@link #headStartOver}).
     */
    private final HeadStart headStart;
    /**
     * Loops sleeping on their channel that asked to be woken once another owner of this client holds the lock
     * ({@link #whenHeldByAnother}): fair-lock waiters, which keep their place in the Redis queue meanwhile.
     */
    private final List<Runnable> nudges = new ArrayList<>();
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
        this.headStart = new HeadStart(scheduler, headStartNanos);
        this.holder = new LocalHolder(nanoTime);
    }

    /**
     * Queues {@code ownerId} when another owner of this client holds the lock, or while other clients have their
     * head start.
     *
     * @param maxWaitNanos the caller's time left ({@code Long.MAX_VALUE} without limit)
     * @param refreshNanos how long the waiter may wait before it asks Redis again even while the local holder lives
     *                     ({@code Long.MAX_VALUE}: as long as the holder lives)
     * @param shared       the waiter waits for a shared hold (a reader) rather than an exclusive one
     * @return the waiter's turn, or null when no other local owner holds the lock (attempt in Redis); a retired
     *         cohort also answers null
     */
    LocalWaiter queueBehindLocalHolder(long ownerId, long leaseMs, long maxWaitNanos, long refreshNanos,
                                       boolean shared) {
        return queueBehindLocalHolder(ownerId, leaseMs, maxWaitNanos, refreshNanos, shared, "");
    }

    /**
     * {@link #queueBehindLocalHolder(long, long, long, long, boolean)} for an owner whose thread is named
     * {@code thread} (the hold record a hand-off to it writes, {@link HoldRecord}).
     */
    synchronized LocalWaiter queueBehindLocalHolder(long ownerId, long leaseMs, long maxWaitNanos, long refreshNanos,
                                                    boolean shared, String thread) {
        if (retired || !(headStart.running() || hasLiveHolder()) || holder.is(ownerId)) {
            return null;
        }
        long now = nanoTime.getAsLong();
        Long deadline = maxWaitNanos == Long.MAX_VALUE ? null : now + maxWaitNanos;
        Long refreshAt = refreshNanos == Long.MAX_VALUE ? null : now + refreshNanos;
        LocalWaiter waiter = new LocalWaiter(ownerId, leaseMs, deadline, refreshAt, shared, now, thread);
        waiters.add(waiter);
        scheduleCheck(waiter, now);
        return waiter;
    }

    /** Wakes {@code waiter} at its deadline, its holder's known lease end or the recheck, whichever comes first. */
    private void scheduleCheck(LocalWaiter waiter, long now) {
        Hold held = holder.hold();
        long sleep = held == null ? recheckNanos : Math.min(held.validForNanos(now), recheckNanos);
        if (waiter.deadlineNanos != null) {
            sleep = Math.min(sleep, waiter.deadlineNanos - now);
        }
        if (waiter.refreshAtNanos != null) {
            sleep = Math.min(sleep, waiter.refreshAtNanos - now);
        }
        waiter.cancelTimeout = scheduler.schedule(() -> check(waiter), Math.max(0, sleep));
    }

    /**
     * A waiter's timer: it keeps its place while a live local holder remains (or other clients have their head start)
     * and its caller still waits; otherwise it leaves the queue and asks Redis (which also settles its deadline).
     */
    private void check(LocalWaiter waiter) {
        synchronized (this) {
            if (!waiters.contains(waiter)) {
                return;
            }
            long now = nanoTime.getAsLong();
            boolean timeLeft = waiter.deadlineNanos == null || waiter.deadlineNanos - now > 0;
            boolean fresh = waiter.refreshAtNanos == null || waiter.refreshAtNanos - now > 0;
            if (timeLeft && fresh && (headStart.running() || hasLiveHolder())) {
                scheduleCheck(waiter, now);
                return;
            }
            waiters.remove(waiter);
        }
        waiter.sendToRedis();
    }

    /**
     * Takes {@code waiter} out of the queue (timeout, abandon) unless a hand-off already chose it: then the hand-off's
     * outcome ends its wait, and if that is the lock, the waiter's own acquisition gives it back (its caller is gone).
     */
    void leave(LocalWaiter waiter) {
        synchronized (this) {
            if (!waiters.remove(waiter)) {
                if (handingOff.contains(waiter)) {
                    waiter.leftWhileReserved = true;
                }
                return;
            }
        }
        waiter.sendToRedis();
    }

    /**
     * Redis granted {@code ownerId} the lock (a first hold or a re-entry).
     *
     * @return false if this cohort is retired (the caller records it in the current one)
     */
    boolean acquired(long ownerId, Hold hold) {
        List<Runnable> nudged;
        synchronized (this) {
            if (retired) {
                return false;
            }
            headStart.stop();
            headStart.held(nanoTime.getAsLong());
            holder.granted(ownerId, hold);
            nudged = takeNudges();
        }
        nudged.forEach(Runnable::run);
        return true;
    }

    /**
     * Runs {@code nudge} once another owner of this client than {@code ownerId} holds the lock: at once if one does,
     * else when one is granted it or handed it ({@link io.dlock.internal.acquire.LocalGate#sleepingOnChannel}).
     *
     * @return cancels it (idempotent); null if this cohort is retired (the caller asks the current one)
     */
    Runnable whenHeldByAnother(long ownerId, Runnable nudge) {
        boolean now;
        synchronized (this) {
            if (retired) {
                return null;
            }
            now = hasLiveHolder() && !holder.is(ownerId);
            if (!now) {
                nudges.add(nudge);
            }
        }
        if (now) {
            nudge.run();
            return () -> { };
        }
        return () -> {
            synchronized (this) {
                nudges.remove(nudge);
            }
        };
    }

    /** Guarded by this. @return the pending nudges, now taken (a holder came) */
    private List<Runnable> takeNudges() {
        if (nudges.isEmpty()) {
            return List.of();
        }
        List<Runnable> taken = new ArrayList<>(nudges);
        nudges.clear();
        return taken;
    }

    /** @return whether an owner of this client other than {@code ownerId} holds the lock, as far as it knows */
    synchronized boolean heldByAnotherLocalOwner(long ownerId) {
        return !retired && hasLiveHolder() && !holder.is(ownerId);
    }

    /**
     * Reserves the waiters {@code pick} names for the hand-off of {@code ownerId}'s last acquisition, taking them out
     * of the line <em>before</em> the script is sent: once it has run, Redis holds the lock for a receiver whatever
     * this client does next, so nothing else (an unlock message, a deadline, a caller giving up, a busy attempt) may
     * send it to Redis meanwhile, where it would adopt the field while the hand-off's reply released it on its behalf
     * (issue 18). Settle with {@link #handedOff}, {@link #handedOffShared} or {@link #handoffFailed}.
     *
     * @return the reserved waiters, empty when nobody waits, {@code ownerId} is not the known holder, this is not its
     *         last acquisition, a hand-off is under way, or the pick is capped
     */
    synchronized List<LocalWaiter> reserveHandoff(long ownerId, Hold hold, LocalLine.Pick pick) {
        if (retired || maxHandoffs == 0 || !holder.is(ownerId) || hold == null || hold.acquisitions() != 1
                || !handingOff.isEmpty() || waiters.isEmpty()) {
            return List.of(); // no hand-offs at all with a cap of 0 (localHandoffs(0), or replica confirmation)
        }
        List<LocalWaiter> reserved = waiters.take(pick, holder.handoffsInARow() >= maxHandoffs,
                nanoTime.getAsLong());
        reserved.forEach(waiter -> waiter.cancelTimeout.run());
        handingOff = reserved;
        return reserved;
    }

    /**
     * The hand-off script moved the lock to {@code reserved.get(chosen)}, recorded as {@code hold}; the other reserved
     * waiters go back to the head of the line, in their order, now behind the new holder (one whose caller left
     * meanwhile is sent on instead, to end its wait).
     */
    void handedOff(List<LocalWaiter> reserved, int chosen, Hold hold) {
        LocalWaiter receiver = reserved.get(chosen);
        List<LocalWaiter> left = new ArrayList<>();
        List<Runnable> nudged;
        synchronized (this) {
            settle(reserved);
            holder.handedTo(receiver.ownerId, hold);
            nudged = takeNudges();
            List<LocalWaiter> back = new ArrayList<>();
            for (LocalWaiter waiter : reserved) {
                if (waiter != receiver) {
                    (waiter.leftWhileReserved ? left : back).add(waiter);
                }
            }
            waiters.putBackFirst(back);
            long now = nanoTime.getAsLong();
            back.forEach(waiter -> scheduleCheck(waiter, now));
        }
        receiver.end(LocalTurn.Turn.HANDED_OVER);
        left.forEach(LocalWaiter::sendToRedis);
        nudged.forEach(Runnable::run);
    }

    /**
     * The hand-off script gave every {@code reserved} waiter (all shared) its hold: none of them is an exclusive
     * holder, so the cohort forgets its holder, and the waiters left in line (exclusive ones, which cannot share the
     * lock with the readers) wait in Redis from now on, where their marks keep new readers out.
     */
    void handedOffShared(List<LocalWaiter> reserved) {
        List<LocalWaiter> rest;
        synchronized (this) {
            settle(reserved);
            holder.forget();
            rest = waiters.takeAll();
        }
        reserved.forEach(waiter -> waiter.end(LocalTurn.Turn.HANDED_OVER));
        rest.forEach(LocalWaiter::sendToRedis);
    }

    /** The hand-off did not happen (or its outcome is unknown): every reserved waiter asks Redis. */
    void handoffFailed(List<LocalWaiter> reserved) {
        synchronized (this) {
            settle(reserved);
        }
        reserved.forEach(LocalWaiter::sendToRedis);
    }

    private void settle(List<LocalWaiter> reserved) {
        if (!handingOff.equals(reserved)) {
            throw new IllegalStateException("hand-off to owners " + LocalLine.owners(reserved) + " was not reserved");
        }
        handingOff = List.of();
    }

    /** {@code ownerId} lost the lock, or did not hold it: {@link #released(long, boolean, long)}, giving no way. */
    void released(long ownerId) {
        released(ownerId, false, 0);
    }

    /**
     * {@code ownerId} no longer holds the lock (released in Redis, lost, or not held after all): if it was the
     * holder, the first waiter attempts in Redis now, or, when {@code othersWoken}, once other clients had their
     * {@link HeadStart}; the others stay queued for whoever gets it next.
     *
     * @param othersWoken   the release's unlock message reached waiters of other clients
     * @param endsAtMessage the {@link #unlockMessages()} count that ends the head start early: the count before the
     *                      release, plus this client's own copy of the release's message, plus one
     */
    void released(long ownerId, boolean othersWoken, long endsAtMessage) {
        List<LocalWaiter> next;
        synchronized (this) {
            if (!holder.is(ownerId)) {
                return;
            }
            holder.forget();
            if (othersWoken && !retired && headStart.due(nanoTime.getAsLong())) {
                headStart.start(endsAtMessage, this::headStartOver);
                return;
            }
            next = waiters.nextTurn();
        }
        next.forEach(LocalWaiter::sendToRedis);
    }

    /** Other clients had their head start: the first waiter asks Redis (unless an owner of this client holds it). */
    private void headStartOver() {
        synchronized (this) {
            if (!headStart.running()) {
                return;
            }
            headStart.stop();
        }
        passOn();
    }

    /** @return how many unlock messages on the lock's channel this client received since this cohort exists */
    synchronized long unlockMessages() {
        return headStart.messages();
    }

    /** An unlock message arrived on the lock's channel: counted; it may end a head start ({@link #released}). */
    void unlockMessageArrived() {
        synchronized (this) {
            if (!headStart.messageArrived()) {
                return;
            }
        }
        passOn();
    }

    /**
     * A waiter was told to attempt in Redis but no longer will (its caller gave up meanwhile), or a head start ended:
     * the next waiter gets that turn, unless a live local holder exists (then it stays queued behind that one) or a
     * head start runs.
     */
    void passOn() {
        List<LocalWaiter> next;
        synchronized (this) {
            if (headStart.running() || hasLiveHolder()) {
                return;
            }
            next = waiters.nextTurn();
        }
        next.forEach(LocalWaiter::sendToRedis);
    }

    /** Forgets the holder and sends every waiter to Redis (force-unlock by this client). */
    void clear() {
        List<LocalWaiter> all;
        synchronized (this) {
            holder.forget();
            headStart.stop();
            headStart.tenureEnds();
            all = waiters.takeAll();
        }
        all.forEach(LocalWaiter::sendToRedis);
    }

    /**
     * A Redis attempt found the lock busy. If no owner of this client holds it, another client does: the local
     * queue would only delay waiters, so all of them go to Redis (and its pub/sub wake-ups) instead. A head start
     * ends there (another client took its chance), and so does this client's tenure.
     */
    void busyInRedis() {
        List<LocalWaiter> all;
        synchronized (this) {
            if (hasLiveHolder()) {
                return;
            }
            headStart.stop();
            headStart.tenureEnds();
            if (waiters.isEmpty()) {
                return;
            }
            all = waiters.takeAll();
        }
        all.forEach(LocalWaiter::sendToRedis);
    }

    /**
     * @return the live holder's hold while owners wait behind it (the registry checks it is still in Redis), else
     *         null
     */
    synchronized Hold holdToVerify() {
        return !retired && handingOff.isEmpty() && !waiters.isEmpty() && hasLiveHolder() ? holder.hold() : null;
    }

    /**
     * Redis no longer has {@code hold} (checked after it was granted): if it is still the holder's, forget the
     * holder and send every waiter to Redis. A later grant (a new hold) is not affected, and neither is a hold being
     * handed off: the check may have run after the hand-off script moved the field, and the script's outcome says
     * who holds the lock now.
     */
    void holderGone(Hold hold) {
        List<LocalWaiter> all;
        synchronized (this) {
            if (holder.hold() != hold || !handingOff.isEmpty()) {
                return;
            }
            holder.forget();
            headStart.stop();
            headStart.tenureEnds();
            all = waiters.takeAll();
        }
        all.forEach(LocalWaiter::sendToRedis);
    }

    /**
     * Retires this cohort if nobody waits and no owner holds the lock as far as this client knows (a hold that ran
     * out or was lost counts as none); a retired cohort answers nothing and is not used again.
     */
    synchronized boolean retireIfIdle() {
        if (!hasLiveHolder() && waiters.isEmpty() && handingOff.isEmpty() && !headStart.running()
                && nudges.isEmpty()) {
            retired = true;
        }
        return retired;
    }

    synchronized int waiterCount() {
        return waiters.size() + handingOff.size();
    }

    /**
     * The state as a string (holder, streak, waiters in order, reserved hand-off target), for tests that explore
     * interleavings and must tell states apart.
     */
    synchronized String describe() {
        StringBuilder b = new StringBuilder("holder=").append(holder).append(" waiters=[").append(waiters);
        b.append("] handingOff=").append(handingOff.isEmpty() ? "none" : LocalLine.owners(handingOff));
        b.append(headStart.running() ? " givingWay" : "");
        return b.append(retired ? " retired" : "").toString();
    }

    private boolean hasLiveHolder() {
        return holder.live();
    }
}
