package io.dlock.internal.semaphore;

import io.dlock.internal.acquire.HeadStart;
import io.dlock.internal.acquire.LocalTurn;
import io.dlock.internal.lease.TaskScheduler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * What one client knows about one semaphore beyond Redis (the plain one's permits, or the leased one's: then a
 * hand-on passes a permit's place in the table, {@code pes_hand_on}, and each waiter brings a {@link PermitTicket}): how many of its permits this client's callers hold
 * ({@link #held}), and which of its acquisitions wait for one of those to be released ({@code line}). A release by
 * this client gives its permits straight to the waiters at the head of the line, once Redis answered its call (which
 * writes nothing for them): the count in Redis stays as it is, as the permits move from one caller of this client to
 * another (docs/architecture.md §12). The rules:
 * <ul>
 *   <li>Redis stays the authority on the count: the line only ever makes an acquisition <em>wait</em>, and only after
 *       Redis refused it, or a waiter ahead of it, an attempt that was sent while this client listened to the
 *       semaphore's channel ({@link #queue}). A message on the channel (a release or an addition in Redis, by any
 *       client) received since that attempt was sent keeps it out of the line; one received while it is in line
 *       sends as many waiters as it names to Redis ({@link #messageArrived}). Each waiter asks Redis again at least
 *       every {@code recheckNanos} and at its deadline.</li>
 *   <li>First in, first out: a release serves the head while it has enough permits for it, and gives the rest to
 *       Redis. At most {@code maxHandoffs} releases in a row are handed on; the next one goes through Redis, whose
 *       message wakes the other clients' waiters (0 = never hand on). When that message reached other clients'
 *       waiters, this client's line may give them a head start ({@link #giveWay}, {@link HeadStart}: the locks'
 *       rule), so that one of them, which must first wake up, wins the permit rather than this client's head.</li>
 *   <li>The reservation rule: a waiter leaves the line exactly once, under this object's monitor, taken by exactly one
 *       of a release's {@link Reservation}, its timer, a message or its caller leaving. A reserved waiter's wait ends
 *       only with the release's call: it gets the permits once Redis answered, even when its caller has gone meanwhile
 *       (its acquisition then releases them again like any late grant), and asks Redis itself if the call failed.</li>
 *   <li>State is guarded by this object's monitor, never held while a turn completes (which runs the waiter's next
 *       step) or while Redis is asked.</li>
 * </ul>
 */
final class LocalPermits {
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;

    private final ArrayDeque<Waiter> line = new ArrayDeque<>();
    /** Permits taken by this client's acquisitions and not released by this client since (never below 0). */
    private long held;
    /** Releases handed on in a row, since the last one that went through Redis. */
    private int handedInARow;
    /**
     * Other clients' head start after a capped release whose message reached their waiters ({@link #giveWay}); also
     * counts the messages received on the semaphore's channel since this object exists (the order of their arrival).
     */
    private final HeadStart headStart;
    /** The permits the last message counted during a running head start announced: how many go when it ends. */
    private long announcedInHeadStart;
    /** Set once it left its registry; callers holding it then fetch a fresh one. */
    private boolean retired;
    /** When it was last used ({@link #nanoTime} scale): it retires only after {@code recheckNanos} unused. */
    private long lastUsedNanos;
    /** A later {@link LocalPermitLines#tidy} is scheduled. */
    private boolean tidyScheduled;

    /**
     * @param headStartNanos how long this client's acquisitions hold back after a capped release that woke other
     *                       clients' waiters (0: never)
     */
    LocalPermits(TaskScheduler scheduler, LongSupplier nanoTime, long recheckNanos, int maxHandoffs,
                 long headStartNanos) {
        this.scheduler = scheduler;
        this.headStart = new HeadStart(scheduler, headStartNanos);
        this.nanoTime = nanoTime;
        this.recheckNanos = recheckNanos;
        this.maxHandoffs = maxHandoffs;
        this.lastUsedNanos = nanoTime.getAsLong();
    }

    /** One acquisition waiting in line for {@code permits} released by this client. */
    static final class Waiter implements LocalTurn {
        final int permits;
        /** What a leased-semaphore waiter brings for its hand-on ({@code pes_hand_on}); null for the plain one. */
        final PermitTicket ticket;
        private final Long deadlineNanos;
        private final CompletableFuture<Turn> turn = new CompletableFuture<>();
        /** Told, before the turn completes, that the permits were handed to this waiter. */
        private final Runnable onHanded;
        private Runnable cancelTimer = () -> { };

        Waiter(int permits, PermitTicket ticket, Long deadlineNanos, Runnable onHanded) {
            this.permits = permits;
            this.ticket = ticket;
            this.deadlineNanos = deadlineNanos;
            this.onHanded = onHanded;
        }

        @Override
        public CompletableFuture<Turn> turn() {
            return turn;
        }

        private void end(Turn value) {
            cancelTimer.run();
            if (value == Turn.HANDED_OVER) {
                onHanded.run();
            }
            turn.complete(value);
        }
    }

    /** @return the count of messages received so far; an attempt notes it when it is sent ({@link #queue}) */
    synchronized long messages() {
        lastUsedNanos = nanoTime.getAsLong();
        return headStart.messages();
    }

    /**
     * Puts an acquisition of {@code permits} in line, if this client's callers hold at least that many (so a release
     * of theirs may serve it) and either
     * <ul>
     *   <li>its attempt was refused and no message arrived since that attempt was sent ({@code messagesAtAttempt}),
     *       or</li>
     *   <li>others wait in line already ({@code messagesAtAttempt} null: no attempt of its own yet). The head of a
     *       line was refused with no message since, and every message takes waiters from the head, so Redis had no
     *       permits for it when it was last asked, and any release to Redis since reaches the line: the newcomer
     *       waits behind it, first in, first out, rather than barging past it in Redis.</li>
     * </ul>
     * While other clients have their head start ({@link #giveWay}), every acquisition that asks may wait in line,
     * whatever it holds: the head start's end sends the head to Redis.
     *
     * @param messagesAtAttempt {@link #messages()} when the refused attempt was sent, or null when there was none
     * @param maxWaitNanos      the caller's time left ({@code Long.MAX_VALUE} without limit)
     * @param ticket            what a leased waiter brings for its hand-on, or null (plain semaphore)
     * @param onHanded          run when a release hands the permits to it, before its turn completes
     * @return its place, or null (attempt in Redis or sleep on the channel instead); a retired object answers null
     */
    synchronized Waiter queue(int permits, Long messagesAtAttempt, long maxWaitNanos, PermitTicket ticket,
                              Runnable onHanded) {
        boolean mayQueue = headStart.running() || held >= permits
                && (messagesAtAttempt == null ? !line.isEmpty() : headStart.messages() == messagesAtAttempt);
        if (retired || !mayQueue) {
            return null;
        }
        long now = nanoTime.getAsLong();
        Waiter waiter = new Waiter(permits, ticket, maxWaitNanos == Long.MAX_VALUE ? null : now + maxWaitNanos,
                onHanded);
        line.addLast(waiter);
        long sleep = recheckNanos;
        if (waiter.deadlineNanos != null) {
            sleep = Math.min(sleep, waiter.deadlineNanos - now);
        }
        waiter.cancelTimer = scheduler.schedule(() -> sendToRedis(waiter), Math.max(0, sleep));
        return waiter;
    }

    /** Takes {@code waiter} out of line, if nothing took it yet, and has it ask Redis (its timer, its caller leaving). */
    void sendToRedis(Waiter waiter) {
        synchronized (this) {
            if (!line.remove(waiter)) {
                return;
            }
        }
        waiter.end(LocalTurn.Turn.ATTEMPT_IN_REDIS);
    }

    /**
     * This client's acquisition took {@code permits} from Redis.
     *
     * @return false if this object is retired (the caller records it in a fresh one)
     */
    synchronized boolean granted(int permits) {
        if (retired) {
            return false;
        }
        long now = nanoTime.getAsLong();
        lastUsedNanos = now;
        held += permits;
        headStart.held(now); // a tenure starts, unless one runs
        return true;
    }

    /** A grant of {@code permits} from Redis went back to Redis (its caller had gone). */
    synchronized void forget(int permits) {
        held = Math.max(0, held - permits);
    }

    /**
     * What a release of this client reserved: the waiters it serves, taken out of line (so nothing else ends their
     * wait), and the permits left for Redis. The release settles it once Redis answered its call: {@link #handOver}
     * on an answer, {@link #fail} on a failure.
     *
     * @param line           where the waiters were reserved (null when none was)
     * @param capped         whether the release goes to Redis because of the cap while this client's acquisitions
     *                       wait in line (it may then give other clients a head start)
     * @param messagesBefore the line's message count when the release was reserved
     */
    record Reservation(LocalPermits line, List<Waiter> served, int left, boolean capped, long messagesBefore) {
        /** A reservation of a client with no line for the semaphore: nobody served, every permit left. */
        static Reservation none(int permits) {
            return new Reservation(null, List.of(), permits, false, 0);
        }

        /**
         * The release's call to Redis was answered, and its message reached {@code receivers} subscribers, of which
         * {@code ownCopies} (0 or 1) are this client's own subscription: when it was capped and reached others, this
         * client may give their waiters a head start ({@link LocalPermits#giveWay}).
         */
        void releasedInRedis(long receivers, long ownCopies) {
            if (capped && receivers > ownCopies) {
                line.giveWay(messagesBefore + ownCopies + 1);
            }
        }

        /** Redis answered the release's call: the served waiters have their permits. */
        void handOver() {
            served.forEach(waiter -> waiter.end(LocalTurn.Turn.HANDED_OVER));
        }

        /**
         * The release's call failed: the served waiters ask Redis themselves, and the permits reserved for them, which
         * the release now sends to Redis, are no longer held here.
         */
        void fail() {
            if (!served.isEmpty()) {
                line.forget(permits());
            }
            served.forEach(waiter -> waiter.end(LocalTurn.Turn.ATTEMPT_IN_REDIS));
        }

        /** @return the permits reserved for the served waiters */
        int permits() {
            return served.stream().mapToInt(waiter -> waiter.permits).sum();
        }
    }

    /**
     * This client releases {@code permits}: reserves the waiters at the head of the line that they cover, unless
     * {@code maxHandoffs} releases in a row were handed on already.
     *
     * @return the reservation (no waiter and every permit left when nobody is served), or null if this object is
     *         retired (the caller asks a fresh one)
     */
    Reservation reserve(int permits) {
        List<Waiter> served = new ArrayList<>();
        int left = permits;
        boolean capped;
        long messagesBefore;
        synchronized (this) {
            if (retired) {
                return null;
            }
            held = Math.max(0, held - permits);
            capped = maxHandoffs > 0 && handedInARow >= maxHandoffs && !line.isEmpty();
            messagesBefore = headStart.messages();
            if (handedInARow < maxHandoffs) {
                for (Waiter head = line.peekFirst(); head != null && head.permits <= left; head = line.peekFirst()) {
                    line.pollFirst();
                    head.cancelTimer.run();
                    served.add(head);
                    left -= head.permits;
                    held += head.permits;
                }
            }
            handedInARow = served.isEmpty() ? 0 : handedInARow + 1;
        }
        return new Reservation(this, served, left, capped, messagesBefore);
    }

    /**
     * A capped release of this client went to Redis and its message reached other clients' waiters: if this client
     * has kept the semaphore's releases to itself for its tenure ({@link HeadStart#due}) and still has acquisitions
     * in line, they give the others a head start. Until it ends, they wait in line, and so does every acquisition of
     * this client that asks ({@link #queue}); it ends at the message after {@code endsAtMessage - 1} (another client
     * released to Redis: from then on all race on equal terms, and that message sends the head of the line as any
     * does) or after its length, when as many waiters as the last message announced ask Redis.
     */
    private synchronized void giveWay(long endsAtMessage) {
        if (retired || line.isEmpty() || !headStart.due(nanoTime.getAsLong())) {
            return;
        }
        announcedInHeadStart = 1;
        headStart.start(endsAtMessage, this::headStartOver);
    }

    /** The head start's time is up: as many waiters as the last message announced ask Redis. */
    private void headStartOver() {
        List<Waiter> sent;
        synchronized (this) {
            if (!headStart.running()) {
                return;
            }
            headStart.stop();
            sent = takeFromHead(announcedInHeadStart);
        }
        sent.forEach(waiter -> waiter.end(LocalTurn.Turn.ATTEMPT_IN_REDIS));
    }

    /** @return up to {@code count} waiters taken from the head of the line (under the monitor) */
    private List<Waiter> takeFromHead(long count) {
        List<Waiter> taken = new ArrayList<>();
        for (Iterator<Waiter> it = line.iterator(); it.hasNext() && taken.size() < count; ) {
            taken.add(it.next());
            it.remove();
        }
        return taken;
    }

    /**
     * A message on the semaphore's channel: {@code permits} went back to Redis (any client's release, an addition).
     * That many waiters, from the head, ask Redis for them; while other clients have their head start, none do (the
     * count is kept for its end).
     */
    void messageArrived(long permits) {
        List<Waiter> sent;
        synchronized (this) {
            headStart.messageArrived();
            if (headStart.running()) {
                announcedInHeadStart = Math.max(1, permits);
                return;
            }
            sent = takeFromHead(permits);
        }
        sent.forEach(waiter -> waiter.end(LocalTurn.Turn.ATTEMPT_IN_REDIS));
    }

    /**
     * The client's subscriptions were established again, and messages may have been lost meanwhile: a head start
     * ends, and every waiter asks Redis.
     */
    void resubscribed() {
        List<Waiter> sent;
        synchronized (this) {
            headStart.messageArrived();
            headStart.stop();
            sent = takeFromHead(Long.MAX_VALUE);
        }
        sent.forEach(waiter -> waiter.end(LocalTurn.Turn.ATTEMPT_IN_REDIS));
    }

    /** A turn to ask Redis went unused (its acquisition ended meanwhile): the head of the line takes it. */
    void passOn() {
        Waiter head;
        synchronized (this) {
            head = line.pollFirst();
        }
        if (head != null) {
            head.end(LocalTurn.Turn.ATTEMPT_IN_REDIS);
        }
    }

    /** How {@link #retireIfIdle} found this object. */
    enum Idle {
        /** In use: held permits or waiters. */
        NO,
        /** Unused but recently used: ask again later. */
        RECENTLY,
        /** Retired now (or before): not used again. */
        RETIRED
    }

    /**
     * Retires this object if nobody waits, this client's callers hold none of the permits and it has not been used for
     * {@code recheckNanos}: an attempt's note ({@link #messages()}) must outlive the attempt's round trip, or its
     * refusal could never put it in line.
     */
    synchronized Idle retireIfIdle() {
        if (retired) {
            return Idle.RETIRED;
        }
        if (held != 0 || !line.isEmpty()) {
            return Idle.NO;
        }
        if (nanoTime.getAsLong() - lastUsedNanos < recheckNanos) {
            return Idle.RECENTLY;
        }
        retired = true;
        headStart.stop();
        return Idle.RETIRED;
    }

    /** @return true if no later tidy was scheduled yet (the caller schedules one) */
    synchronized boolean scheduleTidy() {
        if (tidyScheduled) {
            return false;
        }
        tidyScheduled = true;
        return true;
    }

    synchronized void tidyRan() {
        tidyScheduled = false;
    }

    long recheckNanos() {
        return recheckNanos;
    }

    synchronized boolean retired() {
        return retired;
    }

    synchronized int waiterCount() {
        return line.size();
    }

    synchronized long held() {
        return held;
    }
}
