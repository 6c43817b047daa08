package io.dlock.internal.semaphore;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.Permit;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Args;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * {@link LeasedSemaphore} on Redisson's {@code RPermitExpirableSemaphore} wire (docs/protocol.md §13.2): scripts
 * {@code pes_acquire}, {@code pes_release}, {@code pes_renew} and {@code pes_update}. Keeps nothing but its keys; the
 * permits it grants are {@link LeasedPermit}s, watched by the client's {@link PermitWatchdog}.
 *
 * <p>Every acquisition, of one permit or of several, goes through the one wait loop ({@link PermitAcquisition},
 * built in {@code acquisition}), whose grant is the list of permits one attempt took. Each attempt asks for fresh ids, so an attempt
 * whose reply is lost (it may have run) is undone by releasing those ids, which cannot touch any other permit; and a
 * grant that arrives after its caller gave up is released the same way.
 */
public final class RedisLeasedSemaphore extends PermitCounterBase implements LeasedSemaphore {
    static final String KIND = "leased semaphore";

    public RedisLeasedSemaphore(SemaphoreServices services, String name) {
        super(services, name, KIND);
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

    /** @param leaseTime null for a watchdog lease */
    private long leaseMillis(Duration leaseTime) {
        return leaseTime == null ? -1 : Args.durationMillis(KIND, getName(), "leaseTime", leaseTime);
    }

    /** @return {@code permits}, checked: from 1 to {@link #MAX_PERMITS_AT_ONCE} */
    private int permitCount(int permits) {
        if (permits < 1 || permits > MAX_PERMITS_AT_ONCE) {
            throw new IllegalArgumentException(KIND + " '" + getName() + "': permits must be from 1 to "
                    + MAX_PERMITS_AT_ONCE + ": " + permits);
        }
        return permits;
    }

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
                new PermitAcquisition.Grants<>() {
                    @Override
                    public CompletableFuture<PermitAcquisition.Reply<List<LeasedPermit>>> attempt(String attemptId) {
                        String[] ids = PermitIds.series(attemptId, permits);
                        String[] args = new String[3 + permits];
                        args[0] = Long.toString(lease);
                        args[1] = services.publishCommand;
                        args[2] = keys.channel();
                        System.arraycopy(ids, 0, args, 3, permits);
                        long sentAt = nanoTime();
                        CompletableFuture<Long> reply = services.run(SemaphoreScripts.PES_ACQUIRE,
                                ScriptOutputType.INTEGER, keys.both(), args);
                        return reply.thenApply(r -> {
                            if (r != 0L) {
                                return PermitAcquisition.Reply.busy(r);
                            }
                            lines.granted(channel, permits);
                            List<LeasedPermit> granted = new ArrayList<>(permits);
                            for (String id : ids) {
                                LeasedPermit permit = new LeasedPermit(RedisLeasedSemaphore.this, id, lease,
                                        watchdog, owner, sentAt);
                                // both before the caller hears of it; the grant first, as held() may report it lost
                                services.events.get().permitGranted(getName(), id);
                                services.watchdog.held(permit);
                                granted.add(permit);
                            }
                            return new PermitAcquisition.Reply<>(List.copyOf(granted), 0);
                        });
                    }

                    @Override
                    public CompletableFuture<?> giveBack(String attemptId) {
                        return sendRelease(EACH, true, PermitIds.series(attemptId, permits));
                    }

                    @Override
                    public List<LeasedPermit> handedOver(PermitTicket ticket) {
                        LeasedPermit permit = new LeasedPermit(RedisLeasedSemaphore.this, ticket.id(),
                                ticket.leaseMs(), watchdog, owner, ticket.sentAtNanos());
                        services.events.get().permitGranted(getName(), ticket.id());
                        services.watchdog.held(permit);
                        return List.of(permit);
                    }

                    @Override
                    public CompletableFuture<?> undo(List<LeasedPermit> granted) {
                        lines.forget(channel, granted.size());
                        String[] ids = new String[granted.size()];
                        for (int i = 0; i < ids.length; i++) {
                            LeasedPermit permit = granted.get(i);
                            services.watchdog.forget(permit);
                            if (permit.releaseStarting()) {
                                services.events.get().permitReleased(getName(), permit.id());
                            }
                            ids[i] = permit.id();
                        }
                        return sendRelease(EACH, ids);
                    }
                }, gate, waitNanos);
    }

    /** Releases those of {@code ids} in the table, ignoring the outcome (clean-up of an attempt nobody receives). */
    private void giveBack(String... ids) {
        services.acquisitions.track(sendRelease(EACH, ids));
    }

    private static final String EACH = "each";
    private static final String ALL = "all";

    /** {@code pes_release}; completes with one state per id (see the script). */
    private CompletableFuture<List<Long>> sendRelease(String mode, String... ids) {
        return sendRelease(mode, false, ids);
    }

    /** @param byText send the script's text ({@code EVAL}): a give-back after a lost reply must not meet NOSCRIPT */
    private CompletableFuture<List<Long>> sendRelease(String mode, boolean byText, String... ids) {
        return sendReleaseTold(mode, byText, ids).thenApply(r -> r.subList(0, r.size() - 1));
    }

    /**
     * {@code pes_release}; completes with one state per id, then how many subscribers the release's message reached
     * (see the script).
     */
    private CompletableFuture<List<Long>> sendReleaseTold(String mode, boolean byText, String... ids) {
        String[] args = new String[3 + ids.length];
        args[0] = services.publishCommand;
        args[1] = keys.channel();
        args[2] = mode;
        System.arraycopy(ids, 0, args, 3, ids.length);
        CompletableFuture<List<Object>> reply = byText
                ? services.runByText(SemaphoreScripts.PES_RELEASE, ScriptOutputType.MULTI, keys.both(), args)
                : services.run(SemaphoreScripts.PES_RELEASE, ScriptOutputType.MULTI, keys.both(), args);
        return reply.thenApply(r -> r.stream().map(Long.class::cast).toList());
    }

    private static final Function<List<LeasedPermit>, Permit> ONE = l -> l == null ? null : l.get(0);
    private static final Function<List<LeasedPermit>, Optional<Permit>> MAYBE_ONE =
            l -> Optional.ofNullable(l == null ? null : l.get(0));
    private static final Function<List<LeasedPermit>, List<Permit>> ALL_OR_NONE =
            l -> l == null ? List.of() : List.copyOf(l);

    /** A blocking acquisition: an interrupt abandons it (the one interrupt rule); a single attempt is not cut. */
    private <R> R waitFor(int permits, long leaseMs, long waitNanos, Function<List<LeasedPermit>, R> map,
                          String operation) throws InterruptedException {
        PermitAcquisition<List<LeasedPermit>> acquisition = acquisition(permits, leaseMs, waitNanos);
        return map.apply(waitNanos == 0 ? acquisition.awaitSingleAttempt(operation) : acquisition.await(operation));
    }

    /** One attempt, blocking: a short Redis call, which an interrupt does not cut. */
    private <R> R tryOnce(int permits, Function<List<LeasedPermit>, R> map, String operation) {
        return map.apply(acquisition(permits, -1, 0).awaitSingleAttempt(operation));
    }

    private <R> CompletableFuture<R> async(int permits, long leaseMs, long waitNanos,
                                           Function<List<LeasedPermit>, R> map, String operation) {
        return acquisition(permits, leaseMs, waitNanos).toCaller(map, operation);
    }

    @Override
    public Permit acquire() throws InterruptedException {
        return waitFor(1, -1, -1, ONE, "acquire");
    }

    @Override
    public CompletableFuture<Permit> acquireAsync() {
        return async(1, -1, -1, ONE, "acquire");
    }

    @Override
    public Permit acquire(Duration leaseTime) throws InterruptedException {
        return waitFor(1, leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1, ONE, "acquire");
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(Duration leaseTime) {
        return async(1, leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1, ONE, "acquire");
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return tryOnce(1, MAYBE_ONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync() {
        return async(1, -1, 0, MAYBE_ONE, "tryAcquire");
    }

    @Override
    public Optional<Permit> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime, null);
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime) {
        return tryAcquireAsync(waitTime, null);
    }

    @Override
    public Optional<Permit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        return waitFor(1, leaseMillis(leaseTime), Args.waitNanos(KIND, getName(), "waitTime", waitTime), MAYBE_ONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        return async(1, leaseMillis(leaseTime), Args.waitNanos(KIND, getName(), "waitTime", waitTime), MAYBE_ONE, "tryAcquire");
    }

    @Override
    public List<Permit> acquire(int permits) throws InterruptedException {
        return waitFor(permitCount(permits), -1, -1, ALL_OR_NONE, "acquire");
    }

    @Override
    public CompletableFuture<List<Permit>> acquireAsync(int permits) {
        return async(permitCount(permits), -1, -1, ALL_OR_NONE, "acquire");
    }

    @Override
    public List<Permit> acquire(int permits, Duration leaseTime) throws InterruptedException {
        return waitFor(permitCount(permits), leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1,
                ALL_OR_NONE, "acquire");
    }

    @Override
    public CompletableFuture<List<Permit>> acquireAsync(int permits, Duration leaseTime) {
        return async(permitCount(permits), leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")), -1,
                ALL_OR_NONE, "acquire");
    }

    @Override
    public List<Permit> tryAcquire(int permits) {
        return tryOnce(permitCount(permits), ALL_OR_NONE, "tryAcquire");
    }

    @Override
    public CompletableFuture<List<Permit>> tryAcquireAsync(int permits) {
        return async(permitCount(permits), -1, 0, ALL_OR_NONE, "tryAcquire");
    }

    @Override
    public List<Permit> tryAcquire(int permits, Duration waitTime, Duration leaseTime) throws InterruptedException {
        return waitFor(permitCount(permits), leaseMillis(leaseTime), Args.waitNanos(KIND, getName(), "waitTime", waitTime), ALL_OR_NONE,
                "tryAcquire");
    }

    @Override
    public CompletableFuture<List<Permit>> tryAcquireAsync(int permits, Duration waitTime, Duration leaseTime) {
        return async(permitCount(permits), leaseMillis(leaseTime), Args.waitNanos(KIND, getName(), "waitTime", waitTime), ALL_OR_NONE,
                "tryAcquire");
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
        return sendReleaseTold(EACH, false, permit.id()).whenComplete((r, e) -> permit.releaseEnded(e == null))
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
            return sendRelease(EACH, permit.id()).whenComplete((r, e) -> permit.releaseEnded(e == null))
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
                    services.acquisitions.track(sendRelease(EACH, true, permit.id(), ticket.id()));
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
                giveBack(permit.id());
            }
            return false;
        });
    }

    /**
     * Sends a release by id, first pausing this client's own handles of those ids (not renewed, no loss reported
     * while it is on its way), and ending them as the reply says: released, failed, or held again (a list refused).
     * So a permit of this client released by id is ended as if released through its handle.
     */
    private CompletableFuture<List<Long>> releaseIds(String mode, String[] ids) {
        List<LeasedPermit> own = services.watchdog.heldWithIds(keys, Set.of(ids));
        own.removeIf(permit -> !permit.releaseByIdStarting());
        own.forEach(services.watchdog::forget);
        if (own.isEmpty()) {
            return sendRelease(mode, ids);
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
        }
        return sendRelease(mode, ids).whenComplete((states, error) -> {
            for (LeasedPermit permit : own) {
                long state = error != null ? 0 : states.get(index.get(permit.id()));
                if (error != null || state == 1L || state == 0L) {
                    services.localPermits.forget(keys.channel(), 1);
                    services.events.get().permitReleased(getName(), permit.id());
                    permit.releaseByIdEnded(error != null ? LeasedPermit.State.RELEASE_FAILED
                            : LeasedPermit.State.RELEASED);
                } else {
                    permit.releaseByIdEnded(LeasedPermit.State.HELD);
                    services.watchdog.held(permit);
                }
            }
        });
    }

    /**
     * @param lenient true: an id not in the table answers false; else IllegalArgumentException
     * @return completes with whether the permit was held with its lease running
     */
    private CompletableFuture<Boolean> releaseById(String permitId, boolean lenient) {
        services.checkOpen(KIND, getName());
        String id = PermitIds.require(getName(), permitId);
        return releaseIds(EACH, new String[] {id}).thenApply(r -> {
            long state = r.get(0);
            if (state < 0 && !lenient) {
                throw new IllegalArgumentException("semaphore '" + getName() + "': no permit with id " + id
                        + " is held (never acquired, released already, or expired and reclaimed)");
            }
            return state == 1L;
        });
    }

    @Override
    public boolean release(String permitId) {
        return sync(releaseById(permitId, false), "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(String permitId) {
        return async(releaseById(permitId, false), "release");
    }

    @Override
    public boolean tryRelease(String permitId) {
        return sync(releaseById(permitId, true), "tryRelease");
    }

    @Override
    public CompletableFuture<Boolean> tryReleaseAsync(String permitId) {
        return async(releaseById(permitId, true), "tryRelease");
    }

    /** How many ids a refusal's message names at most. */
    private static final int IDS_NAMED = 10;

    /**
     * All or none.
     *
     * @param lenient true: a refusal answers false; else IllegalArgumentException naming the ids not held
     * @return completes with true when all were released
     */
    private CompletableFuture<Boolean> releaseAll(Collection<String> permitIds, boolean lenient) {
        services.checkOpen(KIND, getName());
        Objects.requireNonNull(permitIds, "permitIds");
        if (permitIds.size() > MAX_PERMITS_AT_ONCE) {
            throw new IllegalArgumentException("semaphore '" + getName() + "': at most " + MAX_PERMITS_AT_ONCE
                    + " permit ids at once: " + permitIds.size());
        }
        Set<String> distinct = new LinkedHashSet<>();
        for (String permitId : permitIds) {
            String id = PermitIds.require(getName(), permitId);
            if (!distinct.add(id)) {
                throw new IllegalArgumentException("semaphore '" + getName() + "': permit id " + id
                        + " appears twice in permitIds");
            }
        }
        if (distinct.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        String[] ids = distinct.toArray(new String[0]);
        return releaseIds(ALL, ids).thenApply(states -> {
            if (states.stream().allMatch(state -> state == 1L)) {
                return true;
            }
            if (lenient) {
                return false;
            }
            List<String> missing = new ArrayList<>();
            List<String> ended = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                if (states.get(i) == -1L) {
                    missing.add(ids[i]);
                } else if (states.get(i) == -2L) {
                    ended.add(ids[i]);
                }
            }
            throw new IllegalArgumentException("semaphore '" + getName() + "': none of the " + ids.length
                    + " permits was released, as not all are held"
                    + (missing.isEmpty() ? "" : "; no permit with id " + named(missing)
                            + " (never acquired, released already, or expired and reclaimed)")
                    + (ended.isEmpty() ? "" : "; the lease has ended of " + named(ended)));
        });
    }

    private static String named(List<String> ids) {
        String shown = String.join(", ", ids.subList(0, Math.min(IDS_NAMED, ids.size())));
        return ids.size() > IDS_NAMED ? shown + " and " + (ids.size() - IDS_NAMED) + " more" : shown;
    }

    @Override
    public void release(Collection<String> permitIds) {
        sync(releaseAll(permitIds, false), "release");
    }

    @Override
    public CompletableFuture<Void> releaseAsync(Collection<String> permitIds) {
        return async(releaseAll(permitIds, false).thenApply(r -> (Void) null), "release");
    }

    @Override
    public boolean tryRelease(Collection<String> permitIds) {
        return sync(releaseAll(permitIds, true), "tryRelease");
    }

    @Override
    public CompletableFuture<Boolean> tryReleaseAsync(Collection<String> permitIds) {
        return async(releaseAll(permitIds, true), "tryRelease");
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
