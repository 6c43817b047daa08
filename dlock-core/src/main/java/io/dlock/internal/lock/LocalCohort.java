package io.dlock.internal.lock;

import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
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
 *   <li>Other clients get that chance for real: once this client has kept a lock that others wait for for a while,
 *       a release that woke them gives them a {@link HeadStart} (only a waiter woken by the message itself and a
 *       single {@code tryLock()} are not held back); else an owner of this client, awake and next in line, would
 *       nearly always win the freed lock back (docs/architecture.md §5).</li>
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
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;

    private final LocalHolder holder;
    private final Deque<LocalWaiter> waiters = new ArrayDeque<>();
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
     * @return the waiter's turn, or null when no other local owner holds the lock (attempt in Redis); a retired
     *         cohort also answers null
     */
    synchronized LocalWaiter queueBehindLocalHolder(long ownerId, long leaseMs, long maxWaitNanos) {
        return queueBehindLocalHolder(ownerId, leaseMs, maxWaitNanos, Long.MAX_VALUE, false);
    }

    /**
     * {@link #queueBehindLocalHolder(long, long, long)} for a waiter that must ask Redis again after
     * {@code refreshNanos} even while the local holder lives ({@code Long.MAX_VALUE}: never), and that waits for a
     * {@code shared} hold (a reader) or an exclusive one.
     */
    synchronized LocalWaiter queueBehindLocalHolder(long ownerId, long leaseMs, long maxWaitNanos, long refreshNanos,
                                                    boolean shared) {
        if (retired || !(headStart.running() || hasLiveHolder()) || holder.is(ownerId)) {
            return null;
        }
        long now = nanoTime.getAsLong();
        Long deadline = maxWaitNanos == Long.MAX_VALUE ? null : now + maxWaitNanos;
        Long refreshAt = refreshNanos == Long.MAX_VALUE ? null : now + refreshNanos;
        LocalWaiter waiter = new LocalWaiter(ownerId, leaseMs, deadline, refreshAt, shared);
        waiters.addLast(waiter);
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
        sendToRedis(waiter);
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
        sendToRedis(waiter);
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
        headStart.stop();
        headStart.held(nanoTime.getAsLong());
        holder.granted(ownerId, hold);
        return true;
    }

    /** @return whether an owner of this client other than {@code ownerId} holds the lock, as far as it knows */
    synchronized boolean heldByAnotherLocalOwner(long ownerId) {
        return !retired && hasLiveHolder() && !holder.is(ownerId);
    }

    /**
     * Reserves the waiter the lock is to be handed to when {@code ownerId} releases its last acquisition: the first
     * in line, taken out of the queue <em>before</em> the hand-off script is sent. Null when nobody waits,
     * {@code ownerId} is not the known holder, this is not its last acquisition, a hand-off is already under way or
     * the hand-offs in a row are used up.
     *
     * <p>Why before: once the script has run, Redis holds the lock for the waiter, whatever this client does next.
     * A waiter still queued until the reply is handled could be sent to Redis by anything that ends a wait in between
     * (an unlock message whose check finds the releaser's field gone, its deadline, its caller giving up, a busy
     * attempt), adopt the field the hand-off gave it and enter, while the hand-off's reply released "its" hold on its
     * behalf: Redis free, owner inside (issue 18; docs/architecture.md §5, "The reservation rule").
     *
     * <p>The caller must settle the reservation with {@link #handedOff} or {@link #handoffFailed}.
     */
    synchronized LocalWaiter reserveHandoff(long ownerId, Hold hold) {
        List<LocalWaiter> reserved = reserveHandoff(ownerId, hold, Pick.FIRST);
        return reserved.isEmpty() ? null : reserved.get(0);
    }

    /** Which waiters a hand-off script is sent for. */
    enum Pick {
        /** The first in line (plain lock); consecutive hand-offs are capped. */
        FIRST,
        /**
         * The whole line at once, for a script that gives the lock to whichever of them Redis has first in its own
         * queue (the fair lock): not capped, since Redis's queue already decides who is next, other clients included.
         */
        EVERY,
        /**
         * The first exclusive waiter (a writer: writers go first, as dlock's readers let waiting writers go first),
         * capped; when none waits, every shared waiter (the readers, who then enter together; not capped, since the
         * lock stops being exclusive and the release is published).
         */
        FIRST_EXCLUSIVE_ELSE_ALL_SHARED
    }

    /**
     * {@link #reserveHandoff(long, Hold)} with the waiters {@code pick} names.
     *
     * @return the reserved waiters (to be settled as one), empty when there is no hand-off
     */
    synchronized List<LocalWaiter> reserveHandoff(long ownerId, Hold hold, Pick pick) {
        if (retired || maxHandoffs == 0 || !holder.is(ownerId) || hold == null || hold.acquisitions() != 1
                || !handingOff.isEmpty() || waiters.isEmpty()) {
            return List.of(); // no hand-offs at all with a cap of 0 (localHandoffs(0), or replica confirmation)
        }
        boolean capped = holder.handoffsInARow() >= maxHandoffs;
        List<LocalWaiter> reserved = switch (pick) {
            case FIRST -> capped ? List.of() : List.of(waiters.pollFirst());
            case EVERY -> takeAll();
            case FIRST_EXCLUSIVE_ELSE_ALL_SHARED -> firstExclusiveElseAllShared(capped);
        };
        reserved.forEach(waiter -> waiter.cancelTimeout.run());
        handingOff = reserved;
        return reserved;
    }

    private List<LocalWaiter> firstExclusiveElseAllShared(boolean capped) {
        for (LocalWaiter waiter : waiters) {
            if (!waiter.shared) {
                if (capped) {
                    return List.of();
                }
                waiters.remove(waiter);
                return List.of(waiter);
            }
        }
        return takeAll();
    }

    /** The hand-off script moved the lock to the {@link #reserveHandoff reserved} {@code waiter}, recorded as {@code hold}. */
    void handedOff(LocalWaiter waiter, Hold hold) {
        handedOff(List.of(waiter), 0, hold);
    }

    /**
     * The hand-off script moved the lock to {@code reserved.get(chosen)}, recorded as {@code hold}; the other reserved
     * waiters go back to the head of the line, in their order, now behind the new holder (one whose caller left
     * meanwhile is sent on instead, to end its wait).
     */
    void handedOff(List<LocalWaiter> reserved, int chosen, Hold hold) {
        LocalWaiter receiver = reserved.get(chosen);
        List<LocalWaiter> left = new ArrayList<>();
        synchronized (this) {
            settle(reserved);
            holder.handedTo(receiver.ownerId, hold);
            long now = nanoTime.getAsLong();
            for (int i = reserved.size() - 1; i >= 0; i--) {
                LocalWaiter waiter = reserved.get(i);
                if (i == chosen) {
                    continue;
                }
                if (waiter.leftWhileReserved) {
                    left.add(waiter);
                } else {
                    waiters.addFirst(waiter);
                    scheduleCheck(waiter, now);
                }
            }
        }
        finish(receiver, LocalWaiter.Turn.HANDED_OVER);
        left.forEach(LocalCohort::sendToRedis);
    }

    /**
     * The hand-off script gave every {@code reserved} waiter (all shared) its hold: none of them is an exclusive
     * holder, so the cohort forgets its holder.
     */
    void handedOffShared(List<LocalWaiter> reserved) {
        synchronized (this) {
            settle(reserved);
            holder.forget();
        }
        reserved.forEach(waiter -> finish(waiter, LocalWaiter.Turn.HANDED_OVER));
    }

    /** The hand-off did not happen (or its outcome is unknown): the {@link #reserveHandoff reserved} waiter asks Redis. */
    void handoffFailed(LocalWaiter waiter) {
        handoffFailed(List.of(waiter));
    }

    /** The hand-off did not happen (or its outcome is unknown): every reserved waiter asks Redis. */
    void handoffFailed(List<LocalWaiter> reserved) {
        synchronized (this) {
            settle(reserved);
        }
        reserved.forEach(LocalCohort::sendToRedis);
    }

    private void settle(List<LocalWaiter> reserved) {
        if (!handingOff.equals(reserved)) {
            throw new IllegalStateException("hand-off to owners " + owners(reserved) + " was not reserved");
        }
        handingOff = List.of();
    }

    private static String owners(List<LocalWaiter> waiters) {
        StringBuilder b = new StringBuilder();
        for (LocalWaiter waiter : waiters) {
            b.append(b.length() == 0 ? "" : " ").append(waiter.ownerId);
        }
        return b.toString();
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
            next = nextTurn();
        }
        next.forEach(LocalCohort::sendToRedis);
    }

    /**
     * Takes the waiters whose turn it is to ask Redis: the first in line, and when that one waits for a shared hold,
     * every other shared waiter too (they may all get it; otherwise they would sit until their timers).
     */
    private List<LocalWaiter> nextTurn() {
        LocalWaiter first = waiters.pollFirst();
        if (first == null) {
            return List.of();
        }
        if (!first.shared) {
            return List.of(first);
        }
        List<LocalWaiter> turn = new ArrayList<>();
        turn.add(first);
        waiters.removeIf(waiter -> waiter.shared && turn.add(waiter));
        return turn;
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
            next = nextTurn();
        }
        next.forEach(LocalCohort::sendToRedis);
    }

    /** Forgets the holder and sends every waiter to Redis (force-unlock by this client). */
    void clear() {
        List<LocalWaiter> all;
        synchronized (this) {
            holder.forget();
            headStart.stop();
            headStart.tenureEnds();
            all = takeAll();
        }
        all.forEach(LocalCohort::sendToRedis);
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
            all = takeAll();
        }
        all.forEach(LocalCohort::sendToRedis);
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
            all = takeAll();
        }
        all.forEach(LocalCohort::sendToRedis);
    }

    /**
     * Retires this cohort if nobody waits and no owner holds the lock as far as this client knows (a hold that ran
     * out or was lost counts as none); a retired cohort answers nothing and is not used again.
     */
    synchronized boolean retireIfIdle() {
        if (!hasLiveHolder() && waiters.isEmpty() && handingOff.isEmpty() && !headStart.running()) {
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
        StringBuilder b = new StringBuilder("holder=").append(holder).append(" waiters=[");
        for (LocalWaiter waiter : waiters) {
            b.append(waiter.ownerId).append(' ');
        }
        b.append("] handingOff=").append(handingOff.isEmpty() ? "none" : owners(handingOff));
        b.append(headStart.running() ? " givingWay" : "");
        return b.append(retired ? " retired" : "").toString();
    }

    private boolean hasLiveHolder() {
        return holder.live();
    }

    /** Takes every waiter out of the queue (the caller sends them to Redis outside the monitor). */
    private List<LocalWaiter> takeAll() {
        List<LocalWaiter> all = List.copyOf(waiters);
        waiters.clear();
        return all;
    }

    /** Ends {@code waiter}'s wait (if any): it attempts in Redis. */
    private static void sendToRedis(LocalWaiter waiter) {
        if (waiter != null) {
            finish(waiter, LocalWaiter.Turn.ATTEMPT_IN_REDIS);
        }
    }

    private static void finish(LocalWaiter waiter, LocalWaiter.Turn value) {
        waiter.cancelTimeout.run();
        waiter.turn.complete(value);
    }
}
