package io.dlock.internal.lease;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.events.EventSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * The client's watchdog and hold registry.
 *
 * <h2>Cadence</h2>
 * One timer per client ticks every {@code watchdogTimeout / 3}. A tick sends every watchdog hold in as few calls as
 * possible (one script call per kind of hold and chunk of {@link #BATCH_SIZE} holds, all pipelined; on a Redis
 * Cluster per kind, hash slot and chunk, since one script may only touch keys of one slot), so renewal
 * costs one round trip per tick however many locks are held. A hold taken just after a tick is renewed at most one period later, with two thirds
 * of its lease still to run. While a renewal fails or hangs, rounds come every {@code period / 3}: a short Redis
 * outage is retried several times before the lease runs out, and a hold whose lease ran out is reported within a
 * third of a period even while a renewal request is still waiting for its command timeout.
 *
 * <h2>When a hold counts as lost</h2>
 * <ul>
 *   <li>a renewal finds the owner field gone while no release of it is in flight: {@code REMOVED}, or
 *       {@code EXPIRED} if its known validity had already ended (the client was paused past its lease);</li>
 *   <li>a watchdog hold's known validity ends without a successful renewal: {@code RENEWAL_FAILED} when the last
 *       renewal failed, else {@code EXPIRED};</li>
 *   <li>a fixed-lease hold reaches the end of its known validity (its {@code leaseValidFor()} reaches zero) without
 *       being released: {@code EXPIRED}, reported then by its alarm ({@link LeaseEnds}, the rule leased permits
 *       share), not at the next round.</li>
 * </ul>
 * Each round also reads back the TTL of the fixed-lease holds (the same scripts with a lease of 0, which change
 * nothing): one found gone is lost as above, one whose TTL another client shortened (a {@code PEXPIRE}) is known valid
 * no longer than Redis keeps it. So a foreign change is seen at the latest at the next round, for every hold: a
 * watchdog hold's renewal sets its TTL back to at least the watchdog timeout (a foreign shortening lasts until then),
 * or finds it gone.
 * A lost hold is dropped (never renewed again) and reported exactly once to the lost-hold sink. Validity is counted
 * on the monotonic clock from the moment the acquiring or renewing request was sent, which is never later than when
 * Redis set the TTL.
 *
 * <p>Thread-safety: safe for concurrent use; callbacks arrive on Redis I/O threads and the timer thread, and every
 * step is non-blocking.
 */
public final class LeaseRenewer implements AutoCloseable {
    /** Holds per renewal call. */
    public static final int BATCH_SIZE = 1000;

    private static final Logger log = LoggerFactory.getLogger(LeaseRenewer.class);

    private final long watchdogMs;
    private final long periodNanos;
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final Clock clock;
    private final Consumer<LeaseLostEvent> lostSink;
    private final ToIntFunction<String> slotOf;
    /** This client's holds: the renewer's records, and what the lock kinds keep beside them. */
    private final HoldTable holds;
    /** Reports each fixed-lease hold when its known validity ends (the rule shared with leased permits). */
    private final LeaseEnds leaseEnds;

    private final Object tickLock = new Object();
    private volatile boolean closed;
    private Runnable cancelNextTick = () -> { };
    private volatile boolean renewalInFlight;
    private volatile boolean lastRoundFailed;
    /** Where hold endings and renewals are reported (lock event listeners). */
    private volatile EventSink events = new EventSink();

    /**
     * @param watchdogMs the watchdog lease; renewals run every third of it
     * @param lostSink   receives each lost hold once (should hand off to an executor: it is called on I/O threads)
     */
    public LeaseRenewer(long watchdogMs, TaskScheduler scheduler, LongSupplier nanoTime,
                        Clock clock, Consumer<LeaseLostEvent> lostSink) {
        this(watchdogMs, scheduler, nanoTime, clock, lostSink, key -> 0);
    }

    /**
     * @param slotOf the Redis Cluster hash slot of a hold's key: one renewal call only carries holds of one slot (a
     *               script's keys must share a slot on a cluster); a constant elsewhere
     */
    public LeaseRenewer(long watchdogMs, TaskScheduler scheduler, LongSupplier nanoTime,
                        Clock clock, Consumer<LeaseLostEvent> lostSink, ToIntFunction<String> slotOf) {
        this.slotOf = slotOf;
        this.watchdogMs = watchdogMs;
        this.periodNanos = watchdogMs * 1_000_000L / 3;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.clock = clock;
        this.lostSink = lostSink;
        this.holds = new HoldTable(nanoTime, watchdogMs, this::ranOut);
        this.leaseEnds = new LeaseEnds(scheduler, nanoTime);
    }

    /** @return this client's hold table, which this renewer walks */
    public HoldTable holds() {
        return holds;
    }

    /** Reports hold endings and renewals to {@code events} (lock event listeners) from now on. */
    public void reportTo(EventSink events) {
        this.events = events;
    }

    /** Starts the periodic tick. */
    public void start() {
        scheduleTick(periodNanos);
    }

    /**
     * Records an acquisition (first or re-entrant) that Redis granted.
     *
     * @param kind        the kind of the acquiring lock: the kind of a hold this acquisition begins
     * @param leaseMs     the requested lease, or {@link Hold#WATCHDOG}
     * @param sentAtNanos when the acquiring request was sent (the client's monotonic clock)
     * @param renewal     how this kind of hold is renewed
     * @return the hold record
     */
    public Hold acquired(LockKind kind, String lockName, String key, String field, long ownerId, long leaseMs,
                         long sentAtNanos, RenewalSender renewal) {
        HoldTable.HoldId id = new HoldTable.HoldId(key, field);
        long effective = leaseMs == Hold.WATCHDOG ? watchdogMs : leaseMs;
        while (true) {
            Hold hold = holds.recordOrCreate(id, () -> new Hold(kind, lockName, key, field, ownerId, renewal));
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
            holds.removeRecord(hold);
        }
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

    /** A release of {@code hold} was sent: until it answers, a renewal that finds the hold gone is no loss. */
    public void releaseStarted(Hold hold) {
        hold.releaseStarted(nanoTime.getAsLong());
    }

    /** A release failed (Redis error or not held); the hold stays as it was. */
    public void releaseFailed(Hold hold) {
        hold.releaseFailed();
        watchEnd(hold);
    }

    /** A release finished: the last hold ({@code full}) or one of several. */
    public void releaseDone(Hold hold, boolean full) {
        if (hold.releaseDone(full, watchdogMs)) {
            leaseEnds.forget(hold);
            holds.removeRecord(hold);
            events.get().holdReleased(hold);
        } else {
            watchEnd(hold);
        }
    }

    /**
     * A release of one of several acquisitions failed and may or may not have run: the hold count in Redis is unknown,
     * so the watchdog stops renewing the hold; it expires after its current lease, and is then reported lost
     * ({@code EXPIRED}) to an owner that still believes in its outer acquisitions.
     */
    public void stopRenewing(Hold hold) {
        hold.stopRenewal();
        watchEnd(hold);
    }

    /** Redis says the owner holds nothing: forget the record without a loss report (the caller gets an exception). */
    public void discard(Hold hold) {
        hold.discard();
        leaseEnds.forget(hold);
        holds.removeRecord(hold);
        events.get().holdDiscarded(hold);
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
     * Redis answered a request other than a renewal that {@code hold} is gone: reported lost once ({@code EXPIRED}
     * when its known validity had ended, else {@code REMOVED}), unless a release of it is in flight.
     */
    public void goneFromRedis(Hold hold) {
        if (!hold.hasPendingRelease()) {
            lose(hold, nanoTime.getAsLong() - hold.validUntilNanos() >= 0
                    ? LeaseLostEvent.Reason.EXPIRED : LeaseLostEvent.Reason.REMOVED);
        }
    }

    /** Forgets every hold on {@code key} without a loss report (this client force-unlocked it). */
    public void discardAll(String key) {
        for (Hold hold : holds.records()) {
            if (hold.key().equals(key)) {
                discard(hold);
            }
        }
    }

    /** @return holds renewed by the watchdog */
    public int renewedCount() {
        return (int) holds.records().stream().filter(Hold::isWatchdogRenewed).count();
    }

    /** @return holds tracked (watchdog or fixed lease) */
    public int trackedCount() {
        return (int) holds.records().stream().filter(Hold::isActive).count();
    }

    /**
     * One round: report holds that ran out, then renew the watchdog holds and read back the fixed-lease ones, unless
     * the previous round is still waiting for Redis. The next round is scheduled first, so a renewal that hangs (Redis
     * paused, network gone) never delays the check of deadlines: a hold whose lease runs out meanwhile is reported at
     * the next round.
     */
    void tick() {
        if (closed) {
            return;
        }
        boolean struggling = renewalInFlight || lastRoundFailed;
        scheduleTick(struggling ? periodNanos / 3 : periodNanos);
        long now = nanoTime.getAsLong();
        List<Hold> due = new ArrayList<>();
        List<Hold> fixed = new ArrayList<>();
        for (Hold hold : holds.records()) {
            if (!hold.isActive() || hold.hasPendingRelease()) {
                continue;
            }
            boolean ranOut = now - hold.validUntilNanos() >= 0;
            if (hold.isWatchdogRenewed()) {
                if (ranOut) {
                    lose(hold, hold.lastRenewalFailed() || renewalInFlight
                            ? LeaseLostEvent.Reason.RENEWAL_FAILED : LeaseLostEvent.Reason.EXPIRED);
                } else {
                    due.add(hold);
                }
            } else if (hold.validForNanos(now) > 0) {
                fixed.add(hold); // one whose validity ended is reported by its alarm (LeaseEnds)
            }
        }
        if ((due.isEmpty() && fixed.isEmpty()) || renewalInFlight) {
            return;
        }
        renewalInFlight = true;
        List<CompletableFuture<Boolean>> batches = new ArrayList<>();
        sendInBatches(due, watchdogMs, now, batches);
        sendInBatches(fixed, 0, now, batches);
        CompletableFuture.allOf(batches.toArray(new CompletableFuture<?>[0])).whenComplete((ignored, error) -> {
            boolean failed = batches.stream().anyMatch(b -> !b.join());
            lastRoundFailed = failed;
            renewalInFlight = false;
            if (failed) {
                scheduleTick(periodNanos / 3);
            }
        });
    }

    /**
     * Sends {@code holds} by kind, slot and chunk of {@link #BATCH_SIZE}: renewed to {@code leaseMs}, or with 0 only
     * read back (fixed-lease holds); adds each call's outcome to {@code batches}.
     */
    private void sendInBatches(List<Hold> holds, long leaseMs, long sentAtNanos,
                               List<CompletableFuture<Boolean>> batches) {
        Map<RenewalSender, Map<Integer, List<Hold>>> byKindAndSlot = new IdentityHashMap<>();
        for (Hold hold : holds) {
            byKindAndSlot.computeIfAbsent(hold.renewal(), k -> new HashMap<>())
                    .computeIfAbsent(slotOf.applyAsInt(hold.key()), k -> new ArrayList<>()).add(hold);
        }
        byKindAndSlot.forEach((renewal, bySlot) -> bySlot.values().forEach(group -> {
            for (int from = 0; from < group.size(); from += BATCH_SIZE) {
                List<Hold> batch = group.subList(from, Math.min(group.size(), from + BATCH_SIZE));
                batches.add(leaseMs > 0 ? renewBatch(renewal, batch, sentAtNanos)
                        : checkBatch(renewal, batch, sentAtNanos));
            }
        }));
    }

    /**
     * Reads back how long Redis keeps each fixed-lease hold of {@code batch}: the validity of each is capped by it,
     * one gone is lost (unless a release of it is in flight). A failed check changes nothing (each hold's own count
     * stands) and does not count as a failed round.
     *
     * @return a future of true; never fails
     */
    private CompletableFuture<Boolean> checkBatch(RenewalSender sender, List<Hold> batch, long sentAtNanos) {
        List<Hold> holdsOfBatch = List.copyOf(batch);
        CompletableFuture<List<Long>> reply = Errors.call(() -> sender.renew(holdsOfBatch, 0));
        return reply.handle((left, error) -> {
            if (error != null || left == null || left.size() != holdsOfBatch.size()) {
                log.debug("lease check of {} lock(s) failed: {}", holdsOfBatch.size(),
                        error != null ? error.toString() : "unexpected reply " + left);
                return true;
            }
            long now = nanoTime.getAsLong();
            for (int i = 0; i < holdsOfBatch.size(); i++) {
                Hold hold = holdsOfBatch.get(i);
                long ms = left.get(i);
                if (ms > 0) {
                    hold.keptAtMost(sentAtNanos, ms);
                    watchEnd(hold);
                } else if (ms == 0 && !hold.hasPendingRelease()) {
                    lose(hold, now - hold.validUntilNanos() >= 0
                            ? LeaseLostEvent.Reason.EXPIRED : LeaseLostEvent.Reason.REMOVED);
                }
            }
            return true;
        });
    }

    /** @return a future of whether the batch succeeded; never fails */
    private CompletableFuture<Boolean> renewBatch(RenewalSender sender, List<Hold> batch, long sentAtNanos) {
        List<Hold> holdsOfBatch = List.copyOf(batch);
        CompletableFuture<List<Long>> reply = Errors.call(() -> sender.renew(holdsOfBatch, watchdogMs));
        return reply.handle((alive, error) -> {
            LockEventListener report = events.get();
            if (error != null || alive == null || alive.size() != holdsOfBatch.size()) {
                log.warn("lease renewal of {} lock(s) failed; retrying: {}", holdsOfBatch.size(),
                        error != null ? error.toString() : "unexpected reply " + alive);
                report.renewalCall(false);
                for (Hold hold : holdsOfBatch) {
                    hold.renewalFailed();
                    report.holdRenewed(hold, false);
                }
                return false;
            }
            report.renewalCall(true);
            long now = nanoTime.getAsLong();
            for (int i = 0; i < holdsOfBatch.size(); i++) {
                Hold hold = holdsOfBatch.get(i);
                if (alive.get(i) != 0) {
                    hold.renewed(sentAtNanos, watchdogMs);
                    report.holdRenewed(hold, true);
                } else if (!hold.hasPendingRelease()) {
                    lose(hold, now - hold.validUntilNanos() >= 0
                            ? LeaseLostEvent.Reason.EXPIRED : LeaseLostEvent.Reason.REMOVED);
                }
            }
            return true;
        });
    }

    private void lose(Hold hold, LeaseLostEvent.Reason reason) {
        if (!hold.markLost()) {
            return;
        }
        leaseEnds.forget(hold);
        holds.removeRecord(hold);
        events.get().holdLost(hold, reason);
        log.warn("lock '{}': hold of owner {} lost ({})", hold.lockName(), hold.field(), reason);
        try {
            lostSink.accept(new LeaseLostEvent(hold.lockName(), hold.ownerId(), reason, clock.instant()));
        } catch (RuntimeException e) {
            log.error("lease-lost sink failed", e);
        }
    }

    /** Has {@code hold} reported when its known validity ends, if it has a fixed lease now ({@link LeaseEnds}). */
    private void watchEnd(Hold hold) {
        leaseEnds.watch(hold, () -> ranOut(hold));
    }

    /** Replaces the pending round by one {@code delayNanos} from now. */
    private void scheduleTick(long delayNanos) {
        synchronized (tickLock) {
            if (!closed) {
                cancelNextTick.run();
                cancelNextTick = scheduler.schedule(this::safeTick, delayNanos);
            }
        }
    }

    /** Runs a round; whatever it throws (an Error included), the timer keeps going, so no hold goes unwatched. */
    private void safeTick() {
        try {
            tick();
        } catch (Throwable e) {
            log.error("lease renewal round failed; retrying", e);
            scheduleTick(periodNanos / 3);
            if (e instanceof VirtualMachineError vmError) {
                throw vmError;
            }
        }
    }

    /**
     * Stops renewing (the client is closing). Every hold still live is reported lost ({@code RENEWAL_FAILED}: nothing
     * renews it any more) so that its owner stops relying on it; in Redis it ends when its current lease runs out.
     */
    @Override
    public void close() {
        synchronized (tickLock) {
            closed = true;
            cancelNextTick.run();
        }
        for (Hold hold : holds.records()) {
            lose(hold, LeaseLostEvent.Reason.RENEWAL_FAILED);
        }
        holds.records().forEach(holds::removeRecord);
    }
}
