package io.dlock.internal.lease;

import io.dlock.LeaseLostEvent;
import io.dlock.LockEventListener;
import io.dlock.internal.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;

/**
 * The client's watchdog: it renews the watchdog holds of the {@link HoldTable} and reports the outcomes there. It
 * only renews: the holds' life (granted, releasing, released, lost) is the table's, and nothing but the client's
 * composition root speaks to the renewer (it builds, starts and closes it).
 *
 * <h2>Cadence</h2>
 * One timer per client ticks every {@code watchdogTimeout / 3}. A tick sends every watchdog hold in as few calls as
 * possible (one script call per kind of hold and chunk of {@link #BATCH_SIZE} holds, all pipelined; on a Redis
 * Cluster per kind, hash slot and chunk, since one script may only touch keys of one slot), so renewal costs one
 * round trip per tick however many locks are held. A round that sends also sends what the client keeps alive in Redis
 * with its holds (its card, {@code io.dlock.internal.card}), in the same round trip. A hold taken just after a tick is
 * renewed at most one period later, with two thirds of its lease still to run. While a renewal fails or hangs,
 * rounds come every {@code period / 3}: a short Redis outage is retried several times before the lease runs out, and
 * a hold whose lease ran out is reported within a third of a period even while a renewal request is still waiting
 * for its command timeout.
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
 * A lost hold is dropped (never renewed again) and reported exactly once, by the table. Validity is counted
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
    private final ToIntFunction<String> slotOf;
    /** This client's holds: the renewer reads the watchdog holds each round and reports its outcomes to it. */
    private final HoldTable holds;
    /** What the client keeps alive in Redis with its holds (its card): sent with each round that sends. */
    private final Runnable withEachRound;

    private final Object tickLock = new Object();
    private volatile boolean closed;
    private Runnable cancelNextTick = () -> { };
    private volatile boolean renewalInFlight;
    private volatile boolean lastRoundFailed;

    /**
     * @param holds     the client's hold table, whose watchdog timeout and clock the renewer uses
     * @param scheduler the timer of the rounds
     * @param slotOf    the Redis Cluster hash slot of a hold's key: one renewal call only carries holds of one slot (a
     *                  script's keys must share a slot on a cluster); a constant elsewhere
     * @param withEachRound what else the client keeps alive in Redis while it holds anything (its card): run, on the
     *                  timer thread, by each round that sends renewals or checks; must not block nor throw
     */
    public LeaseRenewer(HoldTable holds, TaskScheduler scheduler, ToIntFunction<String> slotOf,
                        Runnable withEachRound) {
        this.holds = holds;
        this.withEachRound = withEachRound;
        this.slotOf = slotOf;
        this.watchdogMs = holds.watchdogMs();
        this.periodNanos = watchdogMs * 1_000_000L / 3;
        this.scheduler = scheduler;
        this.nanoTime = holds.nanoTime();
    }

    /** Starts the periodic rounds. */
    public void start() {
        scheduleTick(periodNanos);
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
                    holds.lose(hold, hold.lastRenewalFailed() || renewalInFlight
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
        withEachRound.run();
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
            for (int i = 0; i < holdsOfBatch.size(); i++) {
                Hold hold = holdsOfBatch.get(i);
                long ms = left.get(i);
                if (ms > 0) {
                    holds.keptAtMost(hold, sentAtNanos, ms);
                } else if (ms == 0) {
                    holds.goneFromRedis(hold);
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
            LockEventListener report = holds.events().get();
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
            for (int i = 0; i < holdsOfBatch.size(); i++) {
                Hold hold = holdsOfBatch.get(i);
                if (alive.get(i) != 0) {
                    hold.renewed(sentAtNanos, watchdogMs);
                    report.holdRenewed(hold, true);
                } else {
                    holds.goneFromRedis(hold);
                }
            }
            return true;
        });
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
        holds.renewalEnded();
    }
}
