package io.dlock.internal.lease;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Everything one client knows about its holds, in one place, keyed by ({@code key}, {@code field}) — the Redis key
 * whose field is an owner's hold and that field: the granted {@link Hold} (count, leases, validity), acquire attempts
 * still awaiting their reply, whether the last one ended without an answer (it may have run in Redis), the marks
 * an owner may have left in Redis while it waits (a fair lock's queue place, a writer's mark), and the cleanups that
 * abandoned acquisitions of the owner still run (its next acquisition starts after them).
 *
 * <p>The {@link LeaseRenewer} walks its holds; the lock kinds read and keep the rest; local hand-offs read the holds.
 * An entry exists while anything is known about it and disappears when nothing is. Plain in-memory state, no Redis.
 *
 * <p>Thread-safe: each entry changes atomically ({@link ConcurrentHashMap#compute}); a {@link Hold} guards its own
 * state.
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

    private final ConcurrentHashMap<HoldId, Entry> entries = new ConcurrentHashMap<>();
    /** Entries with pending cleanups: while 0, an acquisition's start costs one read ({@link #runAfterCleanups}). */
    private final AtomicInteger withCleanups = new AtomicInteger();
    private final LongSupplier nanoTime;
    private final long watchdogMs;
    /** Reports a hold whose validity ran out, and says whether it did ({@link LeaseRenewer}'s rule). */
    private final Predicate<Hold> ranOut;

    /**
     * @param ranOut reports a hold whose validity ran out as lost (once) and answers whether it ran out; called by
     *               {@link #find}
     */
    HoldTable(LongSupplier nanoTime, long watchdogMs, Predicate<Hold> ranOut) {
        this.nanoTime = nanoTime;
        this.watchdogMs = watchdogMs;
        this.ranOut = ranOut;
    }

    // ---- the granted holds (the renewer's records) ----

    /**
     * @return the active hold of {@code id}, or null. A hold whose validity ran out (its lease ended without a renewal
     *         this client saw) is reported lost now rather than at the renewer's next round, and is not returned: a new
     *         acquisition of the owner starts a new hold instead of counting on top of one that Redis no longer keeps.
     */
    public Hold find(HoldId id) {
        Hold hold = record(id);
        return hold != null && hold.isActive() && !ranOut.test(hold) ? hold : null;
    }

    /** @return the hold record of {@code id} as stored (possibly ended or run out), or null */
    Hold record(HoldId id) {
        Entry entry = entries.get(id);
        return entry == null ? null : entry.hold;
    }

    /** @return the hold record of {@code id}, created with {@code create} when there is none */
    Hold recordOrCreate(HoldId id, Supplier<Hold> create) {
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
    void removeRecord(Hold hold) {
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

    /** The hold of {@code id} if it is active and not run out (the renewer reports a run-out one at its next look). */
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
