package io.dlock.internal.semaphore;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Args;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * {@link LeasedSemaphore} on Redisson's {@code RPermitExpirableSemaphore} wire (docs/protocol.md §13.2): scripts
 * {@code pes_acquire}, {@code pes_release}, {@code pes_renew} and {@code pes_update}. Keeps nothing but its keys; the
 * permits it grants are {@link LeasedPermit}s, watched by the client's {@link PermitWatchdog}.
 *
 * <p>Its acquire forms are expanded once in {@link LeasedAcquireForms}; every acquisition, of one permit or of several,
 * goes through the one wait loop ({@link PermitAcquisition}, with {@link LeasedGrants}), whose grant is the list of
 * permits one attempt took. Each attempt asks for fresh ids, so an attempt whose reply is lost (it may have run) is
 * undone by releasing those ids, which cannot touch any other permit; and a grant that arrives after its caller gave
 * up is released the same way. Releases by id are {@link PermitReleases}' job.
 */
public final class RedisLeasedSemaphore extends LeasedAcquireForms {
    private final PermitReleases releases;

    public RedisLeasedSemaphore(SemaphoreServices services, String name) {
        super(services, name);
        this.releases = new PermitReleases(services, keys);
    }

    PermitReleases releases() {
        return releases;
    }

    SemaphoreKeys keys() {
        return keys;
    }

    SemaphoreServices services() {
        return services;
    }

    long nanoTime() {
        return services.nanoTime.getAsLong();
    }

    // ---- acquisitions

    /**
     * One acquisition on the one wait loop ({@link PermitAcquisition}): each attempt asks for {@code permits} permits,
     * all or none, in one {@code pes_acquire} call, under ids of its own ({@link PermitIds#series}: the attempt's id
     * and the ids after it), so an attempt whose reply is lost is undone by releasing exactly those ids, which cannot
     * touch any other permit.
     *
     * @param leaseMs   the fixed lease, or -1 for the watchdog's
     * @param waitNanos 0 for one attempt, {@link DistributedLock#WAIT_FOREVER} for no limit
     */
    private PermitAcquisition<List<LeasedPermit>> acquisition(int permits, long leaseMs, long waitNanos) {
        boolean watchdog = leaseMs < 0;
        long lease = watchdog ? services.watchdog.watchdogMs() : leaseMs;
        long owner = Thread.currentThread().getId();
        String channel = keys.channel();
        LocalPermitLines lines = services.localPermits;
        // a release frees one permit, so only an acquisition of one waits in line for it; a single attempt never waits
        PermitGate gate = waitNanos == 0 || permits != 1 || !lines.enabled() ? null
                : new PermitGate(lines, services.acquisitions.waiting().hub(), channel, 1,
                        () -> new PermitTicket(PermitIds.fresh(), lease));
        return new PermitAcquisition<>(services, KIND, getName(), true, channel,
                new LeasedGrants(this, permits, lease, watchdog, owner), gate, waitNanos);
    }

    @Override
    <R> R waitFor(int permits, long leaseMs, long waitNanos, Function<List<LeasedPermit>, R> map,
                          String operation) throws InterruptedException {
        PermitAcquisition<List<LeasedPermit>> acquisition = acquisition(permits, leaseMs, waitNanos);
        return map.apply(waitNanos == 0 ? acquisition.awaitSingleAttempt(operation) : acquisition.await(operation));
    }

    @Override
    <R> R tryOnce(int permits, Function<List<LeasedPermit>, R> map, String operation) {
        return map.apply(acquisition(permits, -1, 0).awaitSingleAttempt(operation));
    }

    @Override
    <R> CompletableFuture<R> async(int permits, long leaseMs, long waitNanos,
                                           Function<List<LeasedPermit>, R> map, String operation) {
        return acquisition(permits, leaseMs, waitNanos).toCaller(map, operation);
    }

    // ---- releases

    /**
     * Releases a permit of this client: at most once per handle ({@link LeasedPermit#releaseStarting} throws on a
     * second), renewal stopped before the script is sent.
     *
     * @return completes with whether the permit was still valid (Redis's judgement, by its clock)
     */
    CompletableFuture<Boolean> releaseHeld(LeasedPermit permit) {
        // a permit the client reported lost (its fixed lease's known validity ended, which may be a few ms before
        // Redis lets it go) answers false, as the report said: the release still goes out, so that it is back now
        boolean reportedLost = permit.isLost();
        if (permit.releaseStarting()) {
            services.events.get().permitReleased(getName(), permit.id());
        }
        services.watchdog.forget(permit);
        LocalPermits.Reservation reservation = services.localPermits.reserve(keys.channel(), 1);
        if (!reservation.served().isEmpty()) {
            return handOn(permit, reservation).thenApply(held -> held && !reportedLost);
        }
        return releases.sendReleaseTold(PermitReleases.EACH, false, permit.id())
                .whenComplete((r, e) -> permit.releaseEnded(e == null))
                .thenApply(r -> {
                    services.releasedInRedis(reservation, keys.channel(), r.get(1));
                    return r.get(0) == 1L && !reportedLost;
                });
    }

    /**
     * Releases {@code permit} by handing its place to the waiter of this client that {@code reservation} served, in
     * one call ({@code pes_hand_on}: the released id leaves the table, the waiter's fresh id enters it with the
     * waiter's lease, the count stays, nothing is published). The waiter gets its permit only once Redis answered
     * that the place passed; when the released id was gone already (its lease ended and was reclaimed, or it was
     * released by id), nothing changed and the waiter asks Redis itself. A call without an answer may have run: both
     * ids go back ({@code pes_release} "each", by text, behind the call on its connection), each known to this
     * client alone, and the waiter asks Redis; so a failed hand-on leaves what a failed release leaves.
     *
     * @return completes as a release does: whether the permit was held with its lease running
     */
    private CompletableFuture<Boolean> handOn(LeasedPermit permit, LocalPermits.Reservation reservation) {
        PermitTicket ticket = reservation.served().get(0).ticket;
        if (ticket == null) {
            // a plain semaphore's waiter on the same name (the keys are shared): nothing to hand it in this table
            reservation.fail();
            return releases.sendRelease(PermitReleases.EACH, permit.id())
                    .whenComplete((r, e) -> permit.releaseEnded(e == null))
                    .thenApply(r -> r.get(0) == 1L);
        }
        ticket.sending(nanoTime());
        CompletableFuture<List<Object>> call = services.run(SemaphoreScripts.PES_HAND_ON, ScriptOutputType.MULTI,
                keys.both(), permit.id(), ticket.id(), Long.toString(ticket.leaseMs()));
        return call.handle((reply, error) -> {
            permit.releaseEnded(error == null);
            if (error != null) {
                reservation.fail();
                if (Errors.isUnavailable(error)) {
                    services.acquisitions.track(
                            releases.sendRelease(PermitReleases.EACH, true, permit.id(), ticket.id()));
                }
                throw new CompletionException(Errors.unwrap(error));
            }
            if ((Long) reply.get(1) == 1L) {
                reservation.handOver();
            } else {
                reservation.fail();
            }
            return (Long) reply.get(0) == 1L;
        });
    }

    /**
     * Sets the fixed lease of a permit of this client ({@code pes_renew} for its id alone).
     *
     * @return completes with whether the permit was held and now has the new lease
     */
    CompletableFuture<Boolean> extendHeld(LeasedPermit permit, Duration leaseTime) {
        long leaseMs = leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime"));
        permit.checkExtendable();
        if (!permit.isHeld()) {
            return CompletableFuture.completedFuture(false); // reported lost already: never brought back
        }
        services.checkOpen(KIND, getName());
        long sentAt = nanoTime();
        CompletableFuture<List<Object>> reply = services.run(SemaphoreScripts.PES_RENEW, ScriptOutputType.MULTI,
                keys.both(), Long.toString(leaseMs), permit.id());
        return reply.thenApply(r -> {
            if (!(r.get(0) instanceof Long n && n > 0)) {
                return false; // gone, or its lease had ended: the watchdog reports it at its validity's end
            }
            if (permit.extended(sentAt, leaseMs)) {
                services.watchdog.leaseChanged(permit);
                return true;
            }
            if (permit.isLost()) {
                // reported lost while the extension was on its way: the client counts it as given back, so it is
                releases.giveBack(permit.id());
            }
            return false;
        });
    }

    @Override
    public boolean release(String permitId) {
        return sync(releases.releaseById(permitId, false), "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(String permitId) {
        return async(releases.releaseById(permitId, false), "release");
    }

    @Override
    public boolean tryRelease(String permitId) {
        return sync(releases.releaseById(permitId, true), "tryRelease");
    }

    @Override
    public CompletableFuture<Boolean> tryReleaseAsync(String permitId) {
        return async(releases.releaseById(permitId, true), "tryRelease");
    }

    @Override
    public void release(Collection<String> permitIds) {
        sync(releases.releaseAll(permitIds, false), "release");
    }

    @Override
    public CompletableFuture<Void> releaseAsync(Collection<String> permitIds) {
        return async(releases.releaseAll(permitIds, false).thenApply(r -> (Void) null), "release");
    }

    @Override
    public boolean tryRelease(Collection<String> permitIds) {
        return sync(releases.releaseAll(permitIds, true), "tryRelease");
    }

    @Override
    public CompletableFuture<Boolean> tryReleaseAsync(Collection<String> permitIds) {
        return async(releases.releaseAll(permitIds, true), "tryRelease");
    }

    // ---- the count

    /** @return {available, acquired, changed} after reclaiming expired permits and applying {@code mode} */
    private CompletableFuture<long[]> update(String mode, int permits, long ttlMs) {
        services.checkOpen(KIND, getName());
        CompletableFuture<List<Object>> reply = services.run(SemaphoreScripts.PES_UPDATE, ScriptOutputType.MULTI,
                keys.both(), mode, Integer.toString(permits), Long.toString(ttlMs), services.publishCommand,
                keys.channel());
        return reply.thenApply(r -> new long[] {(Long) r.get(0), (Long) r.get(1), (Long) r.get(2)});
    }

    @Override
    CompletableFuture<Boolean> trySet(int permits, long ttlMs) {
        return update("try-set", permits, ttlMs).thenApply(r -> r[2] == 1L);
    }

    /** The total of available and acquired permits becomes {@code permits} (at least 0). */
    @Override
    CompletableFuture<Void> set(int permits) {
        return update("set", Args.atLeast(KIND, getName(), "permits", permits, 0), 0).thenApply(r -> null);
    }

    @Override
    CompletableFuture<Integer> available() {
        return update("available", 0, 0).thenApply(r -> (int) r[0]);
    }

    @Override
    CompletableFuture<Void> add(int delta) {
        return update("add", delta, 0).thenApply(r -> null);
    }

    @Override
    public int acquiredPermits() {
        return sync(update("available", 0, 0).thenApply(r -> (int) r[1]), "acquiredPermits");
    }

    @Override
    public CompletableFuture<Integer> acquiredPermitsAsync() {
        return async(update("available", 0, 0).thenApply(r -> (int) r[1]), "acquiredPermits");
    }

    /** Removes both keys, only if they are a leased semaphore's (pes_update "delete"); others are refused, untouched. */
    @Override
    CompletableFuture<Boolean> deleteKeys() {
        return update("delete", 0, 0).thenApply(r -> r[0] > 0);
    }

    @Override
    public String toString() {
        return "LeasedSemaphore{" + getName() + "}";
    }
}
