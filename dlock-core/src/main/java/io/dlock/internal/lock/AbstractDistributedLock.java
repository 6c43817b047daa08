package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.events.EventSink;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Supplier;

/**
 * The public lock API over a handful of primitives that each lock kind provides: one acquire attempt, one release,
 * a forced release and a few reads. Argument checks, waiting, sync-over-async, owner ids and the hand-off of
 * completions to the client's executor live here once.
 *
 * <p>Sync methods are thin waits on the async internals; no lock is held while waiting.
 */
public abstract class AbstractDistributedLock implements DistributedLock {
    protected final LockServices services;
    protected final String name;
    /** Which kind this lock is: given to the holds it begins and reported with its events. */
    private final LockKind kind;

    protected AbstractDistributedLock(LockServices services, String name, LockKind kind) {
        this.services = services;
        this.name = name;
        this.kind = kind;
    }

    /** @return which kind of lock this is */
    protected final LockKind kind() {
        return kind;
    }

    // ---- primitives of a lock kind ----

    /**
     * One attempt for {@code ownerId}; completes with null when acquired (and recorded with the renewer), else with
     * how long to sleep at most before the next attempt (the lock's PTTL for most kinds).
     *
     * @param leaseMs    the lease, or {@link #LEASE_WATCHDOG}
     * @param waitMillis the caller's whole wait: 0 for a single attempt, {@link #WAIT_FOREVER}, or a positive time
     */
    protected abstract CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis);

    /**
     * Removes what failed attempts of {@code ownerId} left in Redis once it stops waiting without the lock (timeout,
     * interrupt, cancellation, failure). Nothing by default.
     */
    protected CompletableFuture<Void> giveUp(long ownerId) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Sends the release script for one hold of {@code ownerId}. Its reply: 1 or more = the owner's last hold went
     * (kinds with local hand-offs add the number of subscribers its unlock message reached), 0 = holds remain, nil =
     * the owner held none.
     *
     * @param hold this client's record of the hold (its leases decide the TTL after a partial release), or null
     */
    protected abstract CompletableFuture<Long> sendRelease(long ownerId, Hold hold);

    /** How error messages name this lock, e.g. {@code lock 'orders'} or {@code fair lock 'orders'}. */
    protected String describe() {
        return "lock '" + name + "'";
    }

    /** The channel whose messages wake this waiter of the lock. */
    protected abstract String wakeupChannel(long ownerId);

    /**
     * Whether every message on {@link #wakeupChannel} should wake all of this client's waiters on it, not just one:
     * for kinds whose waiters on one channel differ (readers and writers), where the one woken might still be unable
     * to enter while another could. False by default.
     */
    protected boolean everyMessageWakesAllWaiters() {
        return false;
    }

    protected abstract CompletableFuture<Boolean> forceRelease();

    /**
     * The gate through which {@code ownerId}'s acquisition waits behind other owners of this client that hold the
     * lock, and takes hand-offs from them ({@link LocalCohort}); null (the default) for kinds where holders can share
     * the lock or a queue in Redis decides the order.
     */
    AcquireLoop.LocalGate localGate(long ownerId, long leaseMs) {
        return null;
    }

    // ---- reads, for the common layout (a hash at NAME, one field per owner); other layouts override ----

    protected CompletableFuture<Boolean> lockedRaw() {
        return mapErrors(services.redis.exists(name).toCompletableFuture().thenApply(n -> n != null && n > 0),
                "isLocked");
    }

    protected CompletableFuture<Long> ttlRaw() {
        return mapErrors(services.redis.pttl(name).toCompletableFuture(), "remainTimeToLive");
    }

    protected CompletableFuture<Integer> holdCountRaw(long ownerId) {
        return mapErrors(services.redis.hget(name, holdField(ownerId)).toCompletableFuture()
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count)), "getHoldCount");
    }

    /** The Redis key under which the renewer tracks this lock's holds. */
    protected String holdKey() {
        return name;
    }

    /** The hash field (and renewer record) of {@code ownerId}'s hold. */
    protected String holdField(long ownerId) {
        return ownerField(ownerId);
    }

    // ---- the shared machinery ----

    /**
     * Sends a hand-off script for the receiver's field and lease (ms). Its reply: 1 = the lock moved to the receiver,
     * 0 = nothing moved (release as usual), nil = the owner held nothing.
     */
    interface HandOffScript {
        CompletableFuture<Long> send(String toField, long toLeaseMs);
    }

    /**
     * For exclusive kinds with a {@link LocalCohort}: when {@code ownerId} releases its last acquisition and another
     * owner of this client waits behind it, lets {@code handOff} move the lock to the first of them; otherwise (or
     * when the script moves nothing) releases with {@code release}. Replies like a release: 1 + n = the owner's last
     * hold is gone and its unlock message reached n subscribers (a hand-off counts as 1), 0 = holds remain, nil = the
     * owner held nothing. Keeps the cohort informed either way: when the message reached other clients' waiters,
     * this client's owners give them a head start ({@link LocalCohort#released(long, boolean, long)}).
     */
    protected final CompletableFuture<Long> releaseOrHandOff(long ownerId, Hold hold, HandOffScript handOff,
                                                             Supplier<CompletableFuture<Long>> release) {
        LocalCohort cohort = services.cohorts.find(name);
        LocalCohort.Waiter next = cohort == null ? null : cohort.reserveHandoff(ownerId, hold);
        long messagesBefore = cohort == null ? 0 : cohort.unlockMessages();
        if (next == null) {
            return releaseInRedis(ownerId, release, messagesBefore);
        }
        String nextField = ownerField(next.ownerId);
        long sentAt = services.renewer.nanoTime();
        CompletableFuture<Long> reply;
        try {
            reply = handOff.send(nextField,
                    next.leaseMs == LEASE_WATCHDOG ? services.renewer.watchdogMs() : next.leaseMs);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((moved, error) -> {
            if (error == null && moved != null && moved == 1L) {
                Hold nextHold = services.renewer.acquired(kind, name, holdKey(), nextField, next.ownerId, next.leaseMs,
                        sentAt, services.hashFieldRenewal);
                services.events.get().handedOff(nextHold);
                // The receiver was reserved before the script was sent, so it still waits for exactly this outcome
                // and nothing else can have sent it to Redis. If its caller gave up meanwhile, its own acquisition
                // gives the lock back: never a release on its behalf here, which raced with a new attempt of the same
                // owner and freed a lock that owner believed it held (issue 18, see LocalCohort#reserveHandoff).
                cohort.handedOff(next, nextHold);
                return CompletableFuture.completedFuture(1L);
            }
            // Not moved, or unknown after an error: the receiver asks Redis itself; this release goes on. A hand-off
            // that ran although its reply was lost gave the receiver a count its client does not know of: its next
            // attempt adopts it (known-count rule), and if it gives up instead, its give-up drops it.
            if (error != null) {
                services.pending.mayHaveRun(name, nextField);
            }
            cohort.handoffFailed(next);
            if (error != null) {
                return CompletableFuture.<Long>failedFuture(error);
            }
            if (moved == null) {
                services.cohorts.released(name, ownerId);
                return CompletableFuture.<Long>completedFuture(null);
            }
            return releaseInRedis(ownerId, release, messagesBefore);
        }).thenCompose(f -> f);
    }

    /**
     * @param messagesBefore the cohort's unlock message count before the release: the head start given to other
     *                       clients ends early once a message beyond this release's own arrives
     */
    private CompletableFuture<Long> releaseInRedis(long ownerId, Supplier<CompletableFuture<Long>> release,
                                                   long messagesBefore) {
        return release.get().thenApply(released -> {
            if (released == null) {
                services.cohorts.released(name, ownerId);
            } else if (released >= 1L) {
                // this client's own subscription, when it has one, is among the receivers
                long own = services.wakeups.listensTo(wakeupChannel(ownerId)) ? 1 : 0;
                services.cohorts.released(name, ownerId, released - 1 > own, messagesBefore + own + 1);
            }
            return released;
        });
    }

    /** @return the TTL to keep after releasing one of several acquisitions of {@code hold} (ms) */
    protected final long leaseAfterRelease(Hold hold) {
        return hold != null ? hold.leaseAfterPartialRelease(services.renewer.watchdogMs())
                : services.renewer.watchdogMs();
    }

    /**
     * Releases one hold of {@code ownerId}: marks the release in flight (so a concurrent renewal that finds the hold
     * gone is no loss), sends it, and settles this client's record from the reply.
     *
     * @throws IllegalMonitorStateException (in the future) when the owner holds nothing; its message names the lock
     *                                      and the owner
     */
    protected final CompletableFuture<Void> release(long ownerId) {
        String field = holdField(ownerId);
        Hold hold = services.renewer.find(holdKey(), field);
        if (hold != null) {
            services.renewer.releaseStarted(hold);
        }
        CompletableFuture<Long> reply;
        try {
            reply = sendRelease(ownerId, hold);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((released, error) -> {
            if (error != null) {
                throw releaseFailed(ownerId, hold, error);
            }
            if (released == null) {
                if (hold != null) {
                    services.renewer.releaseFailed(hold);
                    services.renewer.discard(hold);
                }
                throw new IllegalMonitorStateException(describe() + " is not held by owner " + field
                        + " (never acquired, already released, or its lease expired)");
            }
            if (hold != null) {
                services.renewer.releaseDone(hold, released >= 1L);
            }
            return null;
        });
    }

    /**
     * A release that failed (a Redis error, a timeout, a lost connection) may or may not have run, so this client can
     * no longer vouch for the hold: it stops renewing it, and the hold ends in Redis when its current lease runs out
     * (at most the watchdog timeout for a watchdog hold). The owner's last acquisition is forgotten at once (its
     * caller wanted to let go; local waiters go to Redis, where they wait for the expiry); with outer acquisitions
     * left, the owner is told through its lease-lost listeners when the lease ends.
     *
     * @return the exception for the caller, naming the lock, the Redis error and the consequence
     */
    private RuntimeException releaseFailed(long ownerId, Hold hold, Throwable error) {
        RuntimeException failure = Errors.toApi(error, name, "unlock");
        if (!(failure instanceof LockException)) {
            if (hold != null) {
                services.renewer.releaseFailed(hold);
            }
            return failure;
        }
        long endsWithinMs = hold == null ? services.renewer.watchdogMs()
                : Math.max(0, TimeUnit.NANOSECONDS.toMillis(hold.validForNanos(services.renewer.nanoTime())));
        if (hold != null) {
            boolean last = hold.acquisitions() <= 1;
            services.renewer.releaseFailed(hold);
            if (last) {
                services.renewer.discard(hold);
            } else {
                services.renewer.stopRenewing(hold);
            }
        }
        if (hold == null || hold.acquisitions() == 0) {
            services.cohorts.released(name, ownerId);
        }
        return new LockException(name, failure.getMessage() + "; whether the release ran is unknown, so this client "
                + "no longer renews the hold: it ends in Redis when its lease runs out (within about " + endsWithinMs
                + " ms for this client's last renewal)", failure.getCause());
    }

    protected final String ownerField(long ownerId) {
        return services.clientId + ":" + ownerId;
    }

    protected static long currentOwner() {
        return Thread.currentThread().getId();
    }

    /**
     * Starts an acquisition for {@code ownerId}.
     *
     * @param waitNanos 0 = one attempt, {@link #WAIT_FOREVER}, or a wait in ns
     */
    protected final AcquireLoop startAcquire(long waitNanos, long leaseMs, long ownerId) {
        services.checkOpen(name);
        long deadline = waitNanos == WAIT_FOREVER ? AcquireLoop.NO_DEADLINE : services.renewer.nanoTime() + waitNanos;
        long waitMillis = waitNanos == WAIT_FOREVER ? WAIT_FOREVER
                : waitNanos == 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos));
        LockEventListener.Acquisition followed = services.events.get().acquisitionStarted(kind, name, ownerId);
        AcquireLoop.Attempt attempt = followed == LockEventListener.Acquisition.IGNORED
                ? () -> confirmedAttempt(ownerId, leaseMs, waitMillis)
                : () -> followedAttempt(followed, ownerId, leaseMs, waitMillis);
        AcquireLoop loop = new AcquireLoop(name, attempt,
                () -> release(ownerId), () -> giveUp(ownerId), wakeupChannel(ownerId), services.wakeups,
                services.renewer::nanoTime, deadline, waitNanos == 0, services.renewer.watchdogMs(),
                everyMessageWakesAllWaiters(), services.outage, localGate(ownerId, leaseMs));
        if (followed != LockEventListener.Acquisition.IGNORED) {
            loop.result().whenComplete((acquired, error) -> EventSink.ended(followed, acquired, error));
        }
        services.register(loop);
        loop.start();
        return loop;
    }

    /**
     * {@link #confirmedAttempt} for an acquisition that a lock event listener follows: reports the attempt, and a
     * grant before the loop (and so the caller) learns of it.
     */
    private CompletableFuture<Long> followedAttempt(LockEventListener.Acquisition followed, long ownerId, long leaseMs,
                                                    long waitMillis) {
        followed.attempted();
        return confirmedAttempt(ownerId, leaseMs, waitMillis).thenApply(ttl -> {
            if (ttl == null) {
                Hold hold = services.renewer.find(holdKey(), holdField(ownerId));
                if (hold != null) {
                    followed.granted(hold);
                }
            }
            return ttl;
        });
    }

    /**
     * {@link #attempt}, and when it acquires a first hold while the client asks for replica confirmation
     * ({@code syncReplicas}), the confirmation: if too few replicas confirm, the hold is given back and the attempt
     * fails ({@link ReplicaSync}).
     */
    private CompletableFuture<Long> confirmedAttempt(long ownerId, long leaseMs, long waitMillis) {
        ReplicaSync sync = services.replicaSync;
        if (!sync.enabled() || services.renewer.find(holdKey(), holdField(ownerId)) != null) {
            return attempt(ownerId, leaseMs, waitMillis);
        }
        return attempt(ownerId, leaseMs, waitMillis).thenCompose(ttl -> ttl != null
                ? CompletableFuture.completedFuture(ttl)
                : sync.confirm(name, holdKey(), () -> giveBack(ownerId)));
    }

    /** Releases a hold that could not be confirmed; if that fails too, stops tracking it (it expires on its own). */
    private CompletableFuture<Void> giveBack(long ownerId) {
        CompletableFuture<Void> released;
        try {
            released = release(ownerId);
        } catch (RuntimeException e) {
            released = CompletableFuture.failedFuture(e);
        }
        return released.handle((ok, error) -> {
            if (error != null) {
                Hold hold = services.renewer.find(holdKey(), holdField(ownerId));
                if (hold != null) {
                    services.renewer.discard(hold);
                }
            }
            return null;
        });
    }

    private void acquireUninterruptibly(long leaseMs) {
        AcquireLoop loop = startAcquire(WAIT_FOREVER, leaseMs, currentOwner());
        services.waits.awaitUninterruptibly(loop.result());
    }

    private boolean acquireInterruptibly(long waitNanos, long leaseMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("lock '" + name + "': interrupted before acquiring");
        }
        AcquireLoop loop = startAcquire(waitNanos, leaseMs, currentOwner());
        try {
            return services.waits.await(loop.result());
        } catch (InterruptedException e) {
            services.waits.awaitUninterruptibly(loop.abandon());
            Thread.interrupted();
            throw e;
        }
    }

    /** The caller's future completes on the client's executor; cancelling it abandons the acquisition. */
    private <T> CompletableFuture<T> toCaller(AcquireLoop loop, CompletableFuture<T> internal) {
        CompletableFuture<T> exposed = new CompletableFuture<>();
        internal.whenCompleteAsync((value, error) -> {
            if (error != null) {
                exposed.completeExceptionally(Errors.unwrap(error));
            } else {
                exposed.complete(value);
            }
        }, services.executor);
        if (loop != null) {
            exposed.whenComplete((value, error) -> {
                if (exposed.isCancelled()) {
                    loop.abandon();
                }
            });
        }
        return exposed;
    }

    private <T> CompletableFuture<T> toCaller(CompletableFuture<T> internal) {
        return toCaller(null, internal);
    }

    private <T> CompletableFuture<T> failed(RuntimeException e) {
        return CompletableFuture.failedFuture(e);
    }

    // ---- DistributedLock ----

    @Override
    public String getName() {
        return name;
    }

    @Override
    public void lock() {
        acquireUninterruptibly(LEASE_WATCHDOG);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(TimeArgs.leaseMillis(name, leaseTime, unit));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, LEASE_WATCHDOG);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, TimeArgs.leaseMillis(name, leaseTime, unit));
    }

    @Override
    public boolean tryLock() {
        AcquireLoop loop = startAcquire(0, LEASE_WATCHDOG, currentOwner());
        return services.waits.awaitUninterruptibly(loop.result());
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquireInterruptibly(TimeArgs.waitNanos(name, waitTime, unit), LEASE_WATCHDOG);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long waitNanos = TimeArgs.waitNanos(name, waitTime, unit);
        return acquireInterruptibly(waitNanos, TimeArgs.leaseMillis(name, leaseTime, unit));
    }

    @Override
    public void unlock() {
        services.checkOpen(name);
        services.waits.awaitUninterruptibly(release(currentOwner()));
    }

    @Override
    public boolean forceUnlock() {
        services.checkOpen(name);
        return services.waits.awaitUninterruptibly(forceRelease());
    }

    @Override
    public boolean isLocked() {
        services.checkOpen(name);
        return services.waits.awaitUninterruptibly(lockedRaw());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(currentOwner());
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        services.checkOpen(name);
        return services.waits.awaitUninterruptibly(holdCountRaw(threadId)) > 0;
    }

    @Override
    public int getHoldCount() {
        services.checkOpen(name);
        return services.waits.awaitUninterruptibly(holdCountRaw(currentOwner()));
    }

    @Override
    public long remainTimeToLive() {
        services.checkOpen(name);
        return services.waits.awaitUninterruptibly(ttlRaw());
    }

    @Override
    public Duration leaseValidFor() {
        return leaseValidForOwner(currentOwner());
    }

    @Override
    public Duration leaseValidForOwner(long ownerId) {
        Hold hold = services.renewer.find(holdKey(), holdField(ownerId));
        if (hold == null) {
            return Duration.ZERO;
        }
        long nanos = hold.validForNanos(services.renewer.nanoTime());
        return nanos > 0 ? Duration.ofNanos(nanos) : Duration.ZERO;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("lock '" + name + "': distributed conditions are not supported");
    }

    // ---- async ----

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS, currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsync(leaseTime, unit, currentOwner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        long leaseMs = TimeArgs.leaseMillis(name, leaseTime, unit);
        try {
            AcquireLoop loop = startAcquire(WAIT_FOREVER, leaseMs, ownerId);
            return toCaller(loop, loop.result().thenApply(acquired -> (Void) null));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS, currentOwner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsync(waitTime, leaseTime, unit, currentOwner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long waitNanos = TimeArgs.waitNanos(name, waitTime, unit);
        long leaseMs = TimeArgs.leaseMillis(name, leaseTime, unit);
        try {
            AcquireLoop loop = startAcquire(waitNanos, leaseMs, ownerId);
            return toCaller(loop, loop.result());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(currentOwner());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        try {
            services.checkOpen(name);
            return toCaller(release(ownerId));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        try {
            services.checkOpen(name);
            return toCaller(forceRelease());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        try {
            services.checkOpen(name);
            return toCaller(lockedRaw());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long ownerId) {
        try {
            services.checkOpen(name);
            return toCaller(holdCountRaw(ownerId));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        try {
            services.checkOpen(name);
            return toCaller(ttlRaw());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    /** Maps a Redis failure of {@code operation} to the API's exception, naming this lock. */
    protected final <T> CompletableFuture<T> mapErrors(CompletableFuture<T> reply, String operation) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw Errors.toApi(error, name, operation);
            }
            return value;
        });
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + name + "}";
    }
}
