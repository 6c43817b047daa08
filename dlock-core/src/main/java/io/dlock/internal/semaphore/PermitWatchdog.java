package io.dlock.internal.semaphore;

import io.dlock.LeaseLostEvent;
import io.dlock.internal.lease.LeaseEnds;
import io.lettuce.core.ScriptOutputType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The client's watchdog for leased permits: it renews the permits taken without a lease, and reports every held
 * permit whose lease ends (or that Redis no longer has) to the lease-lost listeners, once.
 *
 * <h2>Cadence</h2>
 * A tick every third of the watchdog timeout (every ninth while the last renewal failed, so a short outage is retried
 * before the lease runs out): first it reports renewed permits whose known validity ended ({@code RENEWAL_FAILED} when
 * the last renewal failed, else {@code EXPIRED}); then, unless the previous renewal is still
 * waiting for Redis, it renews the renewed permits with one {@code pes_renew} call per semaphore and chunk of 1,000
 * ids (the keys of one semaphore share a Cluster slot), and reads back the leases of the permits with a fixed lease
 * (the same script with a lease of 0, which changes nothing). A renewal or check that finds a permit gone reports it
 * ({@code REMOVED}, or {@code EXPIRED} if its validity had ended), unless a release of it is under way; a check that
 * finds a fixed lease shortened by another client (Redisson's {@code updateLeaseTime}) caps the permit's validity by
 * it. So a foreign change is seen at the latest at the next round, for every permit: a watchdog permit's renewal sets
 * its lease back to the watchdog timeout (a foreign shortening lasts until then), or finds it gone. A permit with a
 * fixed lease is reported {@code EXPIRED} when its known validity ends, by the rule lock holds share
 * ({@link LeaseEnds}), not at a round.
 *
 * <p>Why not the locks' {@code HoldTable} and {@code LeaseRenewer}: their records are lock holds with a
 * {@code LockKind}, listed by {@code heldLocks()} and counted by lock metrics; a permit is none of these. This class
 * keeps the same rules (cadence, validity from the send, one report per loss) for permits, and uses the same
 * {@link LeaseEnds} for a fixed lease's end. Thread-safety: the set of permits is
 * concurrent; each permit guards its own state; callbacks run on I/O and timer threads and never block.
 */
final class PermitWatchdog {
    private static final Logger log = LoggerFactory.getLogger(PermitWatchdog.class);
    static final int BATCH_SIZE = 1000;

    private final SemaphoreServices services;
    private final long watchdogMs;
    private final long periodNanos;
    private final Clock clock;
    private final Consumer<LeaseLostEvent> lostSink;
    private final Set<LeasedPermit> permits = ConcurrentHashMap.newKeySet();
    /** Reports each fixed-lease permit when its known validity ends (the rule lock holds share). */
    private final LeaseEnds leaseEnds;
    private volatile boolean renewalInFlight;
    private volatile boolean lastRoundFailed;
    private volatile boolean closed;
    private volatile Runnable cancelNextTick = () -> { };

    PermitWatchdog(SemaphoreServices services, long watchdogMs, Clock clock, Consumer<LeaseLostEvent> lostSink) {
        this.services = services;
        this.watchdogMs = watchdogMs;
        this.periodNanos = watchdogMs * 1_000_000L / 3;
        this.clock = clock;
        this.lostSink = lostSink;
        this.leaseEnds = new LeaseEnds(services.scheduler, services.nanoTime);
    }

    long watchdogMs() {
        return watchdogMs;
    }

    void start() {
        schedule(periodNanos);
    }

    /** A permit was granted: from now on its lease is checked, and renewed if it has none of its own. */
    void held(LeasedPermit permit) {
        permits.add(permit);
        if (closed) {
            lost(permit, LeaseLostEvent.Reason.RENEWAL_FAILED);
        } else {
            leaseChanged(permit);
        }
    }

    /**
     * The validity of {@code permit} changed (granted, its lease set again or found shortened): a fixed lease is
     * reported lost when its known validity ends ({@link LeaseEnds}).
     */
    void leaseChanged(LeasedPermit permit) {
        leaseEnds.watch(permit, () -> {
            if (permit.validForNanos(services.nanoTime.getAsLong()) <= 0) {
                lost(permit, LeaseLostEvent.Reason.EXPIRED);
            }
        });
    }

    /** A release of {@code permit} was sent (or it was given back unseen): no more checks or reports. */
    void forget(LeasedPermit permit) {
        permits.remove(permit);
        leaseEnds.forget(permit);
    }

    /** @return the permits of the semaphore {@code keys} this client holds under one of {@code ids} (a scan) */
    List<LeasedPermit> heldWithIds(SemaphoreKeys keys, Set<String> ids) {
        List<LeasedPermit> found = new ArrayList<>();
        for (LeasedPermit permit : permits) {
            if (ids.contains(permit.id()) && permit.keys().equals(keys)) {
                found.add(permit);
            }
        }
        return found;
    }

    int heldCount() {
        return permits.size();
    }

    private void schedule(long delayNanos) {
        if (!closed) {
            cancelNextTick = services.scheduler.schedule(this::safeTick, delayNanos);
        }
    }

    private void safeTick() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.error("permit watchdog tick failed", e);
        }
    }

    private void tick() {
        schedule(lastRoundFailed ? periodNanos / 3 : periodNanos);
        long now = services.nanoTime.getAsLong();
        Map<SemaphoreKeys, List<LeasedPermit>> due = new LinkedHashMap<>();
        Map<SemaphoreKeys, List<LeasedPermit>> fixed = new LinkedHashMap<>();
        for (LeasedPermit permit : permits) {
            if (!permit.isHeld()) {
                continue;
            }
            if (permit.validForNanos(now) <= 0) {
                if (permit.isWatchdogRenewed()) { // a fixed lease's end is reported by its alarm (LeaseEnds)
                    lost(permit, permit.lastRenewalFailed()
                            ? LeaseLostEvent.Reason.RENEWAL_FAILED : LeaseLostEvent.Reason.EXPIRED);
                }
            } else {
                (permit.isWatchdogRenewed() ? due : fixed).computeIfAbsent(permit.keys(), k -> new ArrayList<>())
                        .add(permit);
            }
        }
        if (renewalInFlight || (due.isEmpty() && fixed.isEmpty())) {
            return;
        }
        renewalInFlight = true;
        List<CompletableFuture<Boolean>> calls = new ArrayList<>();
        sendInBatches(due, watchdogMs, calls);
        sendInBatches(fixed, 0, calls);
        CompletableFuture.allOf(calls.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            lastRoundFailed = calls.stream().anyMatch(c -> !c.join());
            renewalInFlight = false;
        });
    }

    /** Sends each semaphore's permits in chunks of {@link #BATCH_SIZE}: renewed to {@code leaseMs}, or read (0). */
    private void sendInBatches(Map<SemaphoreKeys, List<LeasedPermit>> bySemaphore, long leaseMs,
                               List<CompletableFuture<Boolean>> calls) {
        for (Map.Entry<SemaphoreKeys, List<LeasedPermit>> entry : bySemaphore.entrySet()) {
            List<LeasedPermit> all = entry.getValue();
            for (int from = 0; from < all.size(); from += BATCH_SIZE) {
                calls.add(renew(entry.getKey(), all.subList(from, Math.min(all.size(), from + BATCH_SIZE)), leaseMs));
            }
        }
    }

    /**
     * Renews {@code batch} to {@code leaseMs}, or with 0 reads their leases back (fixed-lease permits: a failed check
     * changes nothing and does not count as a failed round).
     *
     * @return completes with whether the call succeeded (never fails)
     */
    private CompletableFuture<Boolean> renew(SemaphoreKeys keys, List<LeasedPermit> batch, long leaseMs) {
        String[] args = new String[batch.size() + 1];
        args[0] = Long.toString(leaseMs);
        for (int i = 0; i < batch.size(); i++) {
            args[i + 1] = batch.get(i).id();
        }
        long sentAt = services.nanoTime.getAsLong();
        CompletableFuture<List<Object>> reply = services.run(SemaphoreScripts.PES_RENEW, ScriptOutputType.MULTI,
                keys.both(), args);
        return reply.handle((alive, error) -> {
            if (error != null) {
                log.debug("{} {} permits of semaphore '{}' failed: {}", leaseMs > 0 ? "renewing" : "checking",
                        batch.size(), keys.name(), error.toString());
                if (leaseMs == 0) {
                    return true;
                }
                batch.forEach(LeasedPermit::renewalFailed);
                return false;
            }
            for (int i = 0; i < batch.size(); i++) {
                LeasedPermit permit = batch.get(i);
                if (alive.get(i) instanceof Long left && left > 0) {
                    if (leaseMs > 0) {
                        permit.renewed(sentAt);
                    } else {
                        permit.keptAtMost(sentAt, left);
                        leaseChanged(permit);
                    }
                } else if (permit.isHeld()) {
                    lost(permit, permit.validForNanos(services.nanoTime.getAsLong()) <= 0
                            ? LeaseLostEvent.Reason.EXPIRED : LeaseLostEvent.Reason.REMOVED);
                }
            }
            return true;
        });
    }

    /** Reports {@code permit} lost once (no-op if it is no longer held: released, or reported already). */
    private void lost(LeasedPermit permit, LeaseLostEvent.Reason reason) {
        if (permit.lose()) {
            permits.remove(permit);
            leaseEnds.forget(permit);
            services.localPermits.forget(permit.channel(), 1);
            services.events.get().permitLost(permit.semaphoreName(), permit.id(), reason);
            lostSink.accept(new LeaseLostEvent(permit.semaphoreName(), permit.ownerThreadId(), reason,
                    clock.instant()));
        }
    }

    /** Stops renewing; every permit still held is reported lost ({@code RENEWAL_FAILED}): nothing renews it now. */
    void close() {
        closed = true;
        cancelNextTick.run();
        for (LeasedPermit permit : permits) {
            lost(permit, LeaseLostEvent.Reason.RENEWAL_FAILED);
        }
        permits.clear();
    }
}
