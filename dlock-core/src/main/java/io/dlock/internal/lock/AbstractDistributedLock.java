package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.script.Scripts;
import io.lettuce.core.ScriptOutputType;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A lock kind's machinery over a handful of primitives that each kind provides: one acquire attempt, one release, a
 * forced release, a lease extension and a few reads. Acquisition loops, releases (with hand-offs between this
 * client's owners), failures and metrics live here once; the public API over them is {@link LockApi}, which this
 * class serves for the calling thread ({@link #owner()}) and {@link OwnerView} for a fixed owner.
 */
public abstract class AbstractDistributedLock extends LockApi {
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

    /**
     * Sends the lease extension of {@code ownerId}'s hold ({@link LeaseExtension}); replies 1 when the owner's hold
     * now expires {@code leaseMs} from now, 0 when the owner holds nothing in Redis. By default the hold is the
     * owner's field of the hash at {@link #holdKey()} ({@code lock_extend.lua}).
     */
    protected CompletableFuture<Long> sendExtend(long ownerId, long leaseMs) {
        return services.scripts.run(Scripts.LOCK_EXTEND, ScriptOutputType.INTEGER, new String[] {holdKey()},
                Long.toString(leaseMs), holdField(ownerId));
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

    /** The entry of {@code ownerId}'s hold in the client's {@link HoldTable}. */
    protected final HoldId holdId(long ownerId) {
        return new HoldId(holdKey(), holdField(ownerId));
    }

    /**
     * The release scripts' count argument: the owner's count after the release as this client knows it, or
     * {@code -1} when it knows of no hold (the script then takes one off).
     */
    protected final String countAfterReleaseArg(long ownerId, Hold hold) {
        return Long.toString(services.holds.countAfterRelease(holdId(ownerId), hold).orElse(-1));
    }

    // ---- the shared machinery ----

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
        CompletableFuture<Long> reply = Errors.call(() -> sendRelease(ownerId, hold));
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

    /** The lock objects of a client act for the calling thread. */
    @Override
    final long owner() {
        return Thread.currentThread().getId();
    }

    @Override
    final AbstractDistributedLock core() {
        return this;
    }

    /** @return a view of this lock acting for {@code ownerId} ({@link #as}) */
    DistributedLock viewFor(long ownerId) {
        return new OwnerView(this, ownerId);
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
        // after what an abandoned acquisition of the same owner leaves to clean up (AbandonedCleanups)
        services.abandoned.runAfter(() -> holdId(ownerId), loop::start);
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
        CompletableFuture<Void> released = Errors.call(() -> release(ownerId));
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
