package io.dlock.internal.lease;

import io.dlock.LeaseLostEvent;
import io.dlock.LockKind;
import io.dlock.internal.events.EventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Everything one client knows about its holds, in one place, keyed by ({@code key}, {@code field}) — the Redis key
 * whose field is an owner's hold and that field: the granted {@link Hold} (count, leases, validity), acquire attempts
 * still awaiting their reply, whether the last one ended without an answer (it may have run in Redis), the marks
 * an owner may have left in Redis while it waits (a fair lock's queue place, a writer's mark), and the cleanups that
 * abandoned acquisitions of the owner still run (its next acquisition starts after them).
 *
 * <h2>The life of a hold</h2>
 * The table is the one front door for a hold's life: {@code granted} ({@link #granted}; each re-entry counted on the
 * same {@link Hold}) → {@code releasing} ({@link #releasing}: a release in flight, so that a renewal that finds the
 * hold gone is no loss) → {@code released} (the {@link Release}'s outcome), or {@code lost} from granted: its known
 * validity ended (a fixed lease's end is reported when it comes, {@link LeaseEnds}; a watchdog hold's by the
 * {@link LeaseRenewer}'s rounds), or Redis no longer has it ({@link #goneFromRedis}, or a renewal's answer). Each
 * ending is reported once: a loss to the lease-lost sink and the event listeners, a release or a discard to the
 * event listeners. The renewer subscribes to the watchdog holds (it reads them each round) and reports its outcomes
 * here; the lock kinds speak only to the table.
 *
 * <p>An entry exists while anything is known about it and disappears when nothing is. Plain in-memory state, no
 * Redis.
 *
 * <p>Thread-safe: each entry changes atomically ({@link ConcurrentHashMap#compute}); a {@link Hold} guards its own
 * state; reports are made outside both.
 */
public final class HoldTable {
    /** Names one hold: the Redis key whose hash field holds it, and that field ({@code <client id>:<owner id>}…). */
    public record HoldId(String key, String field) {
    }

    /** Something an owner may have left in Redis while it waited, which its give-up must remove. */
    public enum Mark {
        /** A fair lock: the owner may have a place in the lock's queue and timeout set. */
        FAIR_QUEUE_PLACE,
        /** A read-write lock: the owner may have left the writer-waiting mark that holds new readers back. */
        WRITER_MARK,
        /**
         * A read-write lock: the owner may have left the reader-waiting mark that holds new writers back (it was
         * refused by another owner's write hold: the readers' turn comes next).
         */
        READER_MARK
    }

    private static final class Entry {
        Hold hold;
        int inFlight;
        boolean unanswered;
        /** Each mark, with the time it was first set (the caller's clock, ns). */
        final Map<Mark, Long> marks = new EnumMap<>(Mark.class);
        /** All pending cleanups of abandoned acquisitions of this hold, as one future; null when none. */
        volatile CompletableFuture<?> cleanups;

        boolean empty() {
            return hold == null && inFlight == 0 && !unanswered && marks.isEmpty() && cleanups == null;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(HoldTable.class);

    private final ConcurrentHashMap<HoldId, Entry> entries = new ConcurrentHashMap<>();
    /** Entries with pending cleanups: while 0, an acquisition's start costs one read ({@link #runAfterCleanups}). */
    private final AtomicInteger withCleanups = new AtomicInteger();
    private final LongSupplier nanoTime;
    private final long watchdogMs;
    private final Clock clock;
    private final Consumer<LeaseLostEvent> lostSink;
    /** Reports each fixed-lease hold when its known validity ends (the rule shared with leased permits). */
    private final LeaseEnds leaseEnds;
    /** Where hold endings and renewals are reported (lock event listeners). */
    private volatile EventSink events = new EventSink();

    /**
     * @param watchdogMs the watchdog lease (a watchdog hold's TTL)
     * @param scheduler  the timer of the fixed leases' ends
     * @param nanoTime   the client's monotonic clock
     * @param clock      the wall clock, for the time of a loss report
     * @param lostSink   receives each lost hold once (should hand off to an executor: it is called on I/O threads)
     */
    public HoldTable(long watchdogMs, TaskScheduler scheduler, LongSupplier nanoTime, Clock clock,
                     Consumer<LeaseLostEvent> lostSink) {
        this.nanoTime = nanoTime;
        this.watchdogMs = watchdogMs;
        this.clock = clock;
        this.lostSink = lostSink;
        this.leaseEnds = new LeaseEnds(scheduler, nanoTime);
    }

    /** Reports hold endings and renewals to {@code events} (lock event listeners) from now on. */
    public void reportTo(EventSink events) {
        this.events = events;
    }

    long watchdogMs() {
        return watchdogMs;
    }

    LongSupplier nanoTime() {
        return nanoTime;
    }

    EventSink events() {
        return events;
    }

    // ---- the life of a hold ----

    /**
     * Records an acquisition (first or re-entrant) that Redis granted.
     *
     * @param kind        the kind of the acquiring lock: the kind of a hold this acquisition begins
     * @param leaseMs     the requested lease, or {@link Hold#WATCHDOG}
     * @param sentAtNanos when the acquiring request was sent (the client's monotonic clock)
     * @param renewal     how this kind of hold is renewed
     * @return the hold record
     */
    public Hold granted(LockKind kind, String lockName, String key, String field, long ownerId, long leaseMs,
                        long sentAtNanos, RenewalSender renewal) {
        HoldId id = new HoldId(key, field);
        long effective = leaseMs == Hold.WATCHDOG ? watchdogMs : leaseMs;
        while (true) {
            Hold hold = recordOrCreate(id, () -> new Hold(kind, lockName, key, field, ownerId, renewal));
            boolean granted;
            synchronized (hold) {
                granted = hold.isActive() && !ranOut(hold);
                if (granted) {
                    hold.granted(leaseMs, effective, sentAtNanos);
                }
            }
            if (granted) {
                watchEnd(hold);
                return hold;
            }
            removeRecord(hold);
        }
    }

    /**
     * Starts a release of one acquisition of {@code id}'s hold: from now until the handle is settled, a renewal that
     * finds the hold gone is no loss. Call just before the release is sent; settle the handle exactly once from its
     * reply.
     *
     * @return the release in flight; its {@link Release#hold()} is null when this client knows of no live hold (then
     *         its outcomes change nothing here)
     */
    public Release releasing(HoldId id) {
        Hold hold = find(id);
        if (hold != null) {
            hold.releaseStarted(nanoTime.getAsLong());
        }
        return new Release(hold);
    }

    /**
     * One release in flight of one acquisition of a hold ({@link #releasing}): settled once, by what Redis answered.
     * Not thread-safe on its own: settled by the one reply.
     */
    public final class Release {
        private final Hold hold;

        private Release(Hold hold) {
            this.hold = hold;
        }

        /** @return the hold being released, or null when this client knew of none */
        public Hold hold() {
            return hold;
        }

        /** Redis released it: the last acquisition ({@code full}: the hold ends, reported released) or one of more. */
        public void released(boolean full) {
            if (hold == null) {
                return;
            }
            if (hold.releaseDone(full, watchdogMs)) {
                leaseEnds.forget(hold);
                removeRecord(hold);
                events.get().holdReleased(hold);
            } else {
                watchEnd(hold);
            }
        }

        /** Redis says the owner holds nothing: the hold is forgotten without a loss report (the caller throws). */
        public void notHeld() {
            if (hold != null) {
                hold.releaseFailed();
                discard(hold);
            }
        }

        /** The release did not run (refused before it was sent, an error that says so): the hold stays as it was. */
        public void failed() {
            if (hold != null) {
                hold.releaseFailed();
                watchEnd(hold);
            }
        }

        /**
         * The release may or may not have run (no answer): the hold count in Redis is unknown. The owner's last
         * acquisition is forgotten at once (its caller wanted to let go); with outer acquisitions left, the watchdog
         * stops renewing the hold, which expires after its current lease and is then reported lost ({@code EXPIRED})
         * to an owner that still believes in them.
         */
        public void outcomeUnknown() {
            if (hold == null) {
                return;
            }
            boolean last = hold.acquisitions() <= 1;
            hold.releaseFailed();
            if (last) {
                discard(hold);
            } else {
                hold.stopRenewal();
                watchEnd(hold);
            }
        }
    }

    /** Redis says the owner holds nothing: forget the record without a loss report (the caller gets an exception). */
    public void discard(Hold hold) {
        hold.discard();
        leaseEnds.forget(hold);
        removeRecord(hold);
        events.get().holdDiscarded(hold);
    }

    /** Forgets every hold on {@code key} without a loss report (this client force-unlocked it). */
    public void discardAll(String key) {
        for (Hold hold : records()) {
            if (hold.key().equals(key)) {
                discard(hold);
            }
        }
    }

    /**
     * A lease extension of {@code hold}, sent at {@code sentAtNanos}, was granted: the hold now has the fixed lease
     * {@code leaseMs} from then (the watchdog no longer renews it).
     */
    public void extended(Hold hold, long sentAtNanos, long leaseMs) {
        hold.extended(sentAtNanos, leaseMs);
        watchEnd(hold);
    }

    /**
     * The innermost acquisition of {@code hold}, a watchdog one, takes the fixed lease {@code leaseMs} when another
     * acquisition keeps the hold renewed ({@link Hold#innermostToFixedLease}); @return whether it did
     */
    public boolean innermostToFixedLease(Hold hold, long leaseMs) {
        return hold.innermostToFixedLease(leaseMs);
    }

    /** A lease extension of {@code hold} got no reply: its validity ends no later than {@code leaseMs} after it. */
    public void extensionUnknown(Hold hold, long sentAtNanos, long leaseMs) {
        hold.extensionUnknown(sentAtNanos, leaseMs);
        watchEnd(hold);
    }

    /**
     * Redis answered that {@code hold} is gone: reported lost once ({@code EXPIRED} when its known validity had ended,
     * else {@code REMOVED}), unless a release of it is in flight.
     */
    public void goneFromRedis(Hold hold) {
        if (!hold.hasPendingRelease()) {
            lose(hold, nanoTime.getAsLong() - hold.validUntilNanos() >= 0
                    ? LeaseLostEvent.Reason.EXPIRED : LeaseLostEvent.Reason.REMOVED);
        }
    }

    /** A read-back sent at {@code sentAtNanos} found Redis keeps {@code hold} at most {@code leaseMs} more. */
    void keptAtMost(Hold hold, long sentAtNanos, long leaseMs) {
        hold.keptAtMost(sentAtNanos, leaseMs);
        watchEnd(hold);
    }

    /**
     * Reports {@code hold} lost if its validity ran out (a hold not granted yet, or with a release in flight, has
     * not); @return whether it ran out
     */
    private boolean ranOut(Hold hold) {
        if (hold.acquisitions() == 0 || hold.hasPendingRelease() || hold.validForNanos(nanoTime.getAsLong()) > 0) {
            return false;
        }
        lose(hold, hold.lastRenewalFailed() ? LeaseLostEvent.Reason.RENEWAL_FAILED : LeaseLostEvent.Reason.EXPIRED);
        return true;
    }

    /** Has {@code hold} reported when its known validity ends, if it has a fixed lease now ({@link LeaseEnds}). */
    private void watchEnd(Hold hold) {
        leaseEnds.watch(hold, () -> ranOut(hold));
    }

    /** Ends {@code hold} as lost, once: forgotten, and reported to the event listeners and the lease-lost sink. */
    void lose(Hold hold, LeaseLostEvent.Reason reason) {
        if (!hold.markLost()) {
            return;
        }
        leaseEnds.forget(hold);
        removeRecord(hold);
        events.get().holdLost(hold, reason);
        log.warn("lock '{}': hold of owner {} lost ({})", hold.lockName(), hold.field(), reason);
        try {
            lostSink.accept(new LeaseLostEvent(hold.lockName(), hold.ownerId(), reason, clock.instant()));
        } catch (RuntimeException e) {
            log.error("lease-lost sink failed", e);
        }
    }

    /** Nothing renews the holds any more (the client is closing): each still live is lost ({@code RENEWAL_FAILED}). */
    void renewalEnded() {
        for (Hold hold : records()) {
            lose(hold, LeaseLostEvent.Reason.RENEWAL_FAILED);
        }
        records().forEach(this::removeRecord);
    }

    /** @return holds renewed by the watchdog */
    public int renewedCount() {
        return (int) records().stream().filter(Hold::isWatchdogRenewed).count();
    }

    /** @return holds tracked (watchdog or fixed lease) */
    public int trackedCount() {
        return (int) records().stream().filter(Hold::isActive).count();
    }

    // ---- the granted holds ----

    /**
     * @return the active hold of {@code id}, or null. A hold whose validity ran out (its lease ended without a renewal
     *         this client saw) is reported lost now, should its alarm or the renewer's round be late, and is not
     *         returned: a new acquisition of the owner starts a new hold instead of counting on top of one that Redis
     *         no longer keeps.
     */
    public Hold find(HoldId id) {
        Hold hold = record(id);
        return hold != null && hold.isActive() && !ranOut(hold) ? hold : null;
    }

    /** @return the hold record of {@code id} as stored (possibly ended or run out), or null */
    Hold record(HoldId id) {
        Entry entry = entries.get(id);
        return entry == null ? null : entry.hold;
    }

    /** @return the hold record of {@code id}, created with {@code create} when there is none */
    private Hold recordOrCreate(HoldId id, Supplier<Hold> create) {
        Hold[] result = new Hold[1];
        entries.compute(id, (k, entry) -> {
            Entry e = entry != null ? entry : new Entry();
            if (e.hold == null) {
                e.hold = create.get();
            }
            result[0] = e.hold;
            return e;
        });
        return result[0];
    }

    /** Forgets {@code hold} if it is still the record of its id. */
    private void removeRecord(Hold hold) {
        update(new HoldId(hold.key(), hold.field()), e -> {
            if (e.hold == hold) {
                e.hold = null;
            }
        });
    }

    /** @return the holds granted and still known valid now (a snapshot, for reporting) */
    public List<Hold> validHolds() {
        long now = nanoTime.getAsLong();
        List<Hold> valid = new ArrayList<>();
        for (Hold hold : records()) {
            if (hold.isActive() && hold.acquisitions() > 0 && hold.validForNanos(now) > 0) {
                valid.add(hold);
            }
        }
        return valid;
    }

    /** @return every hold record (a snapshot) */
    List<Hold> records() {
        List<Hold> all = new ArrayList<>();
        entries.values().forEach(entry -> {
            Hold hold = entry.hold;
            if (hold != null) {
                all.add(hold);
            }
        });
        return all;
    }

    // ---- attempts whose outcome is not known yet ----

    /** An acquire attempt for {@code id} is being sent. */
    public void attemptStarted(HoldId id) {
        update(id, e -> e.inFlight++);
    }

    /**
     * An attempt's reply arrived (and, if it acquired, the hold was recorded first), or it failed.
     *
     * @param answered false when it failed without an answer from Redis (it may have run)
     */
    public void attemptEnded(HoldId id, boolean answered) {
        update(id, e -> {
            e.unanswered = !answered;
            e.inFlight = Math.max(0, e.inFlight - 1);
        });
    }

    /**
     * A script that may have given the hold a count (a hand-off to this owner) failed without an answer: treated as an
     * unanswered attempt (the owner's give-up drops what it may have left, its next attempt adopts it).
     */
    public void mayHaveRun(HoldId id) {
        update(id, e -> e.unanswered = true);
    }

    /** What the last unanswered attempt may have left was dealt with (dropped, or adopted by a later attempt). */
    public void settled(HoldId id) {
        update(id, e -> e.unanswered = false);
    }

    /** @return whether the last attempt for {@code id} ended without an answer and nothing answered since */
    public boolean unanswered(HoldId id) {
        Entry entry = entries.get(id);
        return entry != null && entry.unanswered;
    }

    /** @return attempts for {@code id} still awaiting their reply */
    public int inFlight(HoldId id) {
        Entry entry = entries.get(id);
        return entry == null ? 0 : entry.inFlight;
    }

    // ---- marks left in Redis while waiting ----

    /** The owner of {@code id} may now have left {@code mark} in Redis. */
    public void mark(HoldId id, Mark mark) {
        update(id, e -> e.marks.putIfAbsent(mark, 0L));
    }

    /**
     * Sets {@code mark} on {@code id} if it is not set yet, noting when.
     *
     * @param nowNanos the caller's clock now
     * @return how long {@code mark} has been set, in ns (0 when set now)
     */
    public long markSince(HoldId id, Mark mark, long nowNanos) {
        long[] since = new long[1];
        update(id, e -> since[0] = e.marks.computeIfAbsent(mark, m -> nowNanos));
        return nowNanos - since[0];
    }

    /** @return whether {@code id} has {@code mark} */
    public boolean marked(HoldId id, Mark mark) {
        boolean[] has = new boolean[1];
        entries.computeIfPresent(id, (k, entry) -> {
            has[0] = entry.marks.containsKey(mark);
            return entry;
        });
        return has[0];
    }

    /** @return whether {@code id} had {@code mark} (which is now cleared) */
    public boolean unmark(HoldId id, Mark mark) {
        boolean[] had = new boolean[1];
        update(id, e -> had[0] = e.marks.remove(mark) != null);
        return had[0];
    }

    // ---- cleanups of abandoned acquisitions ----

    /**
     * Records {@code cleanup}, the end of an acquisition of {@code id} that its caller abandoned (a cancelled async
     * future): it still withdraws a queue place or a writer's mark, drops what an unanswered attempt may have left,
     * or releases a hold granted just as it was cancelled. Until every such cleanup is done (succeeded or failed), the
     * same owner's next acquisition of the hold waits ({@link #runAfterCleanups}), so that the two never race (its
     * new queue place withdrawn, its new count taken down). Acquisitions that end any other way clean up before their
     * result completes, so only abandoned ones are recorded.
     */
    public void trackCleanup(HoldId id, CompletableFuture<?> cleanup) {
        if (cleanup.isDone()) {
            return;
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[1];
        update(id, e -> {
            if (e.cleanups == null) {
                withCleanups.incrementAndGet();
                e.cleanups = cleanup;
            } else {
                e.cleanups = CompletableFuture.allOf(e.cleanups, cleanup);
            }
            all[0] = e.cleanups;
        });
        all[0].whenComplete((ok, error) -> update(id, e -> {
            if (e.cleanups == all[0]) {
                e.cleanups = null;
                withCleanups.decrementAndGet();
            }
        }));
    }

    /**
     * Runs {@code start} now, or once the cleanups recorded for the hold are done (on the thread that completes the
     * last of them). {@code id} is only computed when some hold has a cleanup pending, so the common case costs one
     * read per acquisition.
     */
    public void runAfterCleanups(Supplier<HoldId> id, Runnable start) {
        CompletableFuture<?> before = null;
        if (withCleanups.get() > 0) {
            Entry entry = entries.get(id.get());
            before = entry == null ? null : entry.cleanups;
        }
        if (before == null || before.isDone()) {
            start.run();
        } else {
            before.whenComplete((ok, error) -> start.run());
        }
    }

    // ---- what the scripts are told ----

    /**
     * @return the hold count of {@code id} as this client knows it: the acquisitions of its live hold plus attempts
     *         still awaiting their reply (the acquire scripts adopt a count above it, left by a lost reply)
     */
    public long knownCount(HoldId id) {
        Hold hold = live(id);
        return (hold == null ? 0 : hold.acquisitions()) + inFlight(id);
    }

    /**
     * @return the acquisitions of {@code id}'s live hold that this client counts on (granted, none of them being
     *         released), 0 without one: when positive, the owner's field must still be in Redis, and an acquisition
     *         that finds it gone must not re-create it as a re-entry (fragment {@code hold_gone})
     */
    public long heldCount(HoldId id) {
        Hold hold = live(id);
        return hold == null ? 0 : hold.acquisitionsAfterPendingReleases();
    }

    /** @return the lease (ms) {@code id}'s hold has now; the watchdog timeout when this client knows none */
    public long currentLease(HoldId id) {
        Hold hold = live(id);
        return hold == null ? watchdogMs : hold.currentLease(watchdogMs);
    }

    /**
     * @return the owner's count once the release being sent is done, as this client knows it (so that a release also
     *         takes away a count a lost acquire reply left), or empty when it knows of no hold (the script then takes
     *         one off)
     */
    public OptionalLong countAfterRelease(HoldId id, Hold hold) {
        int inFlight = inFlight(id);
        if (hold == null) {
            return inFlight == 0 ? OptionalLong.empty() : OptionalLong.of(inFlight);
        }
        return OptionalLong.of(hold.acquisitionsAfterPendingReleases() + inFlight);
    }

    /** @return entries with anything known (tests: the table must not grow without bound) */
    public int size() {
        return entries.size();
    }

    /** The hold of {@code id} if it is active and not run out (a run-out one is reported by its alarm or a round). */
    private Hold live(HoldId id) {
        Hold hold = record(id);
        if (hold == null || !hold.isActive()) {
            return null;
        }
        boolean ranOut = hold.acquisitions() > 0 && !hold.hasPendingRelease()
                && hold.validForNanos(nanoTime.getAsLong()) <= 0;
        return ranOut ? null : hold;
    }

    private void update(HoldId id, java.util.function.Consumer<Entry> change) {
        entries.compute(id, (k, entry) -> {
            Entry e = entry != null ? entry : new Entry();
            change.accept(e);
            return e.empty() ? null : e;
        });
    }
}
