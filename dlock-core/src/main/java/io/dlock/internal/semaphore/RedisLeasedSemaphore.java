package io.dlock.internal.semaphore;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.Permit;
import io.dlock.internal.acquire.Args;
import io.lettuce.core.ScriptOutputType;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link LeasedSemaphore} on Redisson's {@code RPermitExpirableSemaphore} wire (docs/protocol.md §13.2): scripts
 * {@code pes_acquire}, {@code pes_release}, {@code pes_renew} and {@code pes_update}. Keeps nothing but its keys; the
 * permits it grants are {@link LeasedPermit}s, watched by the client's {@link PermitWatchdog}.
 *
 * <p>Each attempt asks for a fresh id, so an attempt whose reply is lost (it may have run) is undone by releasing
 * that id, which cannot touch any other permit; and a grant that arrives after its caller gave up is released the
 * same way.
 */
public final class RedisLeasedSemaphore implements LeasedSemaphore {
    static final String KIND = "leased semaphore";

    private final SemaphoreServices services;
    private final SemaphoreKeys keys;

    public RedisLeasedSemaphore(SemaphoreServices services, String name) {
        this.services = services;
        this.keys = SemaphoreKeys.of(name);
    }

    @Override
    public String getName() {
        return keys.name();
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

    /**
     * One acquisition of a permit under a fresh id per attempt ({@link PermitAcquisition}: an attempt whose reply is
     * lost is undone by releasing its own id, which cannot touch any other permit).
     *
     * @param leaseMs   the fixed lease, or -1 for the watchdog's
     * @param waitNanos 0 for one attempt, {@link DistributedLock#WAIT_FOREVER} for no limit
     */
    private PermitAcquisition<LeasedPermit> acquisition(long leaseMs, long waitNanos) {
        boolean watchdog = leaseMs < 0;
        long lease = watchdog ? services.watchdog.watchdogMs() : leaseMs;
        long owner = Thread.currentThread().getId();
        return new PermitAcquisition<>(services, KIND, getName(), true, keys.channel(),
                new PermitAcquisition.Grants<>() {
                    @Override
                    public CompletableFuture<PermitAcquisition.Reply<LeasedPermit>> attempt(String id) {
                        long sentAt = nanoTime();
                        CompletableFuture<Long> reply = services.run(SemaphoreScripts.PES_ACQUIRE,
                                ScriptOutputType.INTEGER, keys.both(), Long.toString(lease), services.publishCommand,
                                keys.channel(), id);
                        return reply.thenApply(r -> {
                            if (r != 0L) {
                                return PermitAcquisition.Reply.busy(r);
                            }
                            LeasedPermit permit = new LeasedPermit(RedisLeasedSemaphore.this, id, lease, watchdog,
                                    owner, sentAt);
                            // both before the caller hears of it; the grant first, as held() may report it lost
                            services.events.get().permitGranted(getName(), id);
                            services.watchdog.held(permit);
                            return new PermitAcquisition.Reply<>(permit, 0);
                        });
                    }

                    @Override
                    public CompletableFuture<?> giveBack(String id) {
                        return sendRelease(id);
                    }

                    @Override
                    public CompletableFuture<?> undo(LeasedPermit granted) {
                        services.watchdog.forget(granted);
                        if (granted.releaseStarting()) {
                            services.events.get().permitReleased(getName(), granted.id());
                        }
                        return sendRelease(granted.id());
                    }
                }, waitNanos);
    }

    private CompletableFuture<Long> sendRelease(String id) {
        return services.run(SemaphoreScripts.PES_RELEASE, ScriptOutputType.INTEGER, keys.both(),
                services.publishCommand, keys.channel(), id);
    }

    private Permit acquireSync(long leaseMs) throws InterruptedException {
        return acquisition(leaseMs, DistributedLock.WAIT_FOREVER).await("acquire");
    }

    private CompletableFuture<Permit> acquireAsync(long leaseMs) {
        try {
            return acquisition(leaseMs, DistributedLock.WAIT_FOREVER).toCaller(p -> (Permit) p, "acquire");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Permit acquire() throws InterruptedException {
        return acquireSync(-1);
    }

    @Override
    public CompletableFuture<Permit> acquireAsync() {
        return acquireAsync(-1);
    }

    @Override
    public Permit acquire(Duration leaseTime) throws InterruptedException {
        return acquireSync(leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")));
    }

    @Override
    public CompletableFuture<Permit> acquireAsync(Duration leaseTime) {
        return acquireAsync(leaseMillis(Objects.requireNonNull(leaseTime, "leaseTime")));
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return Optional.ofNullable(acquisition(-1, 0).awaitSingleAttempt("tryAcquire"));
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync() {
        return tryAcquireAsync(Duration.ZERO, null);
    }

    @Override
    public Optional<Permit> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long waitNanos = Args.waitNanos(KIND, getName(), "waitTime", waitTime);
        PermitAcquisition<LeasedPermit> acquisition = acquisition(leaseMillis(leaseTime), waitNanos);
        return Optional.ofNullable(waitNanos == 0 ? acquisition.awaitSingleAttempt("tryAcquire")
                : acquisition.await("tryAcquire"));
    }

    @Override
    public CompletableFuture<Optional<Permit>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        try {
            return acquisition(leaseMillis(leaseTime), Args.waitNanos(KIND, getName(), "waitTime", waitTime))
                    .toCaller(p -> Optional.<Permit>ofNullable(p), "tryAcquire");
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ---- releases

    /**
     * Releases a permit of this client: at most once per handle ({@link LeasedPermit#releaseStarting} throws on a
     * second), renewal stopped before the script is sent.
     *
     * @return completes with whether the permit was still valid (Redis's judgement, by its clock)
     */
    CompletableFuture<Boolean> releaseHeld(LeasedPermit permit) {
        if (permit.releaseStarting()) {
            services.events.get().permitReleased(getName(), permit.id());
        }
        services.watchdog.forget(permit);
        return sendRelease(permit.id()).whenComplete((r, e) -> permit.releaseEnded(e == null))
                .thenApply(r -> r == 1L);
    }

    private CompletableFuture<Boolean> releaseById(String permitId) {
        services.checkOpen(KIND, getName());
        String id = PermitIds.require(getName(), permitId);
        return sendRelease(id).thenApply(r -> {
            if (r < 0) {
                throw new IllegalArgumentException("semaphore '" + getName() + "': no permit with id " + id
                        + " is held (never acquired, released already, or expired and reclaimed)");
            }
            return r == 1L;
        });
    }

    @Override
    public boolean release(String permitId) {
        return sync(releaseById(permitId), "release");
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(String permitId) {
        return async(releaseById(permitId), "release");
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

    private <T> T sync(CompletableFuture<T> future, String operation) {
        return services.sync(future, KIND, getName(), operation);
    }

    private <T> CompletableFuture<T> async(CompletableFuture<T> future, String operation) {
        return services.async(future, KIND, getName(), operation);
    }

    private CompletableFuture<Boolean> trySet(int permits, long ttlMs) {
        return update("try-set", Args.atLeast(KIND, getName(), "permits", permits, 0), ttlMs).thenApply(r -> r[2] == 1L);
    }

    @Override
    public boolean trySetPermits(int permits) {
        return sync(trySet(permits, 0), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits) {
        return async(trySet(permits, 0), "trySetPermits");
    }

    @Override
    public boolean trySetPermits(int permits, Duration ttl) {
        return sync(trySet(permits, Args.durationMillis(KIND, getName(), "ttl", ttl)), "trySetPermits");
    }

    @Override
    public CompletableFuture<Boolean> trySetPermitsAsync(int permits, Duration ttl) {
        return async(trySet(permits, Args.durationMillis(KIND, getName(), "ttl", ttl)), "trySetPermits");
    }

    private CompletableFuture<Void> set(int permits) {
        return update("set", Args.atLeast(KIND, getName(), "permits", permits, 0), 0).thenApply(r -> null);
    }

    @Override
    public void setPermits(int permits) {
        sync(set(permits), "setPermits");
    }

    @Override
    public CompletableFuture<Void> setPermitsAsync(int permits) {
        return async(set(permits), "setPermits");
    }

    private CompletableFuture<Void> add(int delta) {
        return update("add", Args.notZero(KIND, getName(), "delta", delta), 0).thenApply(r -> null);
    }

    @Override
    public void addPermits(int delta) {
        sync(add(delta), "addPermits");
    }

    @Override
    public CompletableFuture<Void> addPermitsAsync(int delta) {
        return async(add(delta), "addPermits");
    }

    @Override
    public int availablePermits() {
        return sync(update("available", 0, 0).thenApply(r -> (int) r[0]), "availablePermits");
    }

    @Override
    public CompletableFuture<Integer> availablePermitsAsync() {
        return async(update("available", 0, 0).thenApply(r -> (int) r[0]), "availablePermits");
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
    private CompletableFuture<Boolean> deleteKeys() {
        return update("delete", 0, 0).thenApply(r -> r[0] > 0);
    }

    @Override
    public boolean delete() {
        return sync(deleteKeys(), "delete");
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync() {
        return async(deleteKeys(), "delete");
    }

    @Override
    public String toString() {
        return "LeasedSemaphore{" + getName() + "}";
    }
}
