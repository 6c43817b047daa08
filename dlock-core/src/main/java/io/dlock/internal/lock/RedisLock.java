package io.dlock.internal.lock;

import io.dlock.internal.acquire.AcquireSteps;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.WakeMode;

import io.dlock.DistributedLock;
import io.dlock.LockEventListener;
import io.dlock.LockException;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.events.EventSink;
import io.dlock.internal.lease.HoldTable.HoldId;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one lock implementation: drives a kind's {@link LockProtocol} and does everything that is the same for every
 * kind, once: acquisitions (the wait loop, the local gate, replica confirmation, events, cleanups of abandoned
 * acquisitions), releases with their failures, forced releases and reads, for any owner. The public API over it is
 * {@link LockApi}, served by {@link OwnerView} for the calling thread or a fixed owner.
 *
 * <p>Thread-safe and immutable: every hold and wait lives in the client's {@link LockServices}.
 */
final class RedisLock {
    final LockServices services;
    final String name;
    final LockProtocol protocol;

    RedisLock(LockProtocol protocol) {
        LockContext context = protocol.context();
        this.services = context.services();
        this.name = context.name();
        this.protocol = protocol;
    }

    /** The hold table key of {@code ownerId}'s hold. */
    HoldId holdId(long ownerId) {
        return new HoldId(protocol.holdKey(), protocol.holdField(ownerId));
    }

    /** @return this client's record of {@code ownerId}'s hold, or null */
    Hold hold(long ownerId) {
        return services.renewer.find(protocol.holdKey(), protocol.holdField(ownerId));
    }

    // ---- the shared machinery ----

    /**
     * Releases one hold of {@code ownerId}: marks the release in flight (so a concurrent renewal that finds the hold
     * gone is no loss), sends it, and settles this client's record from the reply.
     *
     * @throws IllegalMonitorStateException (in the future) when the owner holds nothing; its message names the lock
     *                                      and the owner
     */
    CompletableFuture<Void> release(long ownerId) {
        String field = protocol.holdField(ownerId);
        Hold hold = services.renewer.find(protocol.holdKey(), field);
        if (hold != null) {
            services.renewer.releaseStarted(hold);
        }
        CompletableFuture<Long> reply = Errors.call(() -> protocol.release(ownerId, hold));
        return reply.handle((released, error) -> {
            if (error != null) {
                throw releaseFailed(ownerId, hold, error);
            }
            if (released == null) {
                if (hold != null) {
                    services.renewer.releaseFailed(hold);
                    services.renewer.discard(hold);
                }
                throw new IllegalMonitorStateException(protocol.describe() + " is not held by owner " + field
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

    /**
     * Starts an acquisition for {@code ownerId}.
     *
     * @param waitNanos 0 = one attempt, {@link #DistributedLock.WAIT_FOREVER}, or a wait in ns
     */
    AcquireLoop startAcquire(long waitNanos, long leaseMs, long ownerId) {
        services.checkOpen(name);
        long deadline = waitNanos == DistributedLock.WAIT_FOREVER ? AcquireLoop.NO_DEADLINE : services.renewer.nanoTime() + waitNanos;
        long waitMillis = waitNanos == DistributedLock.WAIT_FOREVER ? DistributedLock.WAIT_FOREVER
                : waitNanos == 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos));
        LockEventListener.Acquisition followed = services.events.get().acquisitionStarted(protocol.context().kind(),
                name, ownerId);
        AcquireLoop.Attempt attempt = followed == LockEventListener.Acquisition.IGNORED
                ? () -> confirmedAttempt(ownerId, leaseMs, waitMillis)
                : () -> followedAttempt(followed, ownerId, leaseMs, waitMillis);
        AcquireSteps steps = new AcquireSteps("lock", name, attempt, () -> release(ownerId),
                () -> Errors.call(() -> protocol.giveUp(ownerId)), List.of(protocol.wakeupChannel(ownerId)),
                protocol.everyMessageWakesAllWaiters() ? WakeMode.ALL : WakeMode.ONE, protocol.localGate(ownerId, leaseMs),
                cleanup -> services.holds.trackCleanup(holdId(ownerId), cleanup));
        AcquireLoop loop = new AcquireLoop(steps, services.loopWaiting, deadline, waitNanos == 0);
        if (followed != LockEventListener.Acquisition.IGNORED) {
            loop.result().whenComplete((acquired, error) -> EventSink.ended(followed, acquired, error));
        }
        services.register(loop);
        // after what an abandoned acquisition of the same owner leaves to clean up (HoldTable#trackCleanup)
        services.holds.runAfterCleanups(() -> holdId(ownerId), loop::start);
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
                Hold hold = hold(ownerId);
                if (hold != null) {
                    followed.granted(hold);
                }
            }
            return ttl;
        });
    }

    /**
     * The protocol's attempt, and when it acquires a first hold while the client asks for replica confirmation
     * ({@code syncReplicas}), the confirmation: if too few replicas confirm, the hold is given back and the attempt
     * fails ({@link ReplicaSync}).
     */
    private CompletableFuture<Long> confirmedAttempt(long ownerId, long leaseMs, long waitMillis) {
        ReplicaSync sync = services.replicaSync;
        // a re-entry is judged before the attempt is sent: once sent, its own grant may already be tracked when the
        // check runs, and a first acquisition would pass for a re-entry, unconfirmed
        boolean reentry = sync.enabled() && hold(ownerId) != null;
        CompletableFuture<Long> attempt = Errors.call(() -> protocol.attempt(ownerId, leaseMs, waitMillis));
        if (!sync.enabled() || reentry) {
            return attempt;
        }
        return attempt.thenCompose(ttl -> ttl != null
                ? CompletableFuture.completedFuture(ttl)
                : sync.confirm(name, protocol.holdKey(), () -> giveBack(ownerId)));
    }

    /** Releases a hold that could not be confirmed; if that fails too, stops tracking it (it expires on its own). */
    private CompletableFuture<Void> giveBack(long ownerId) {
        CompletableFuture<Void> released = Errors.call(() -> release(ownerId));
        return released.handle((ok, error) -> {
            if (error != null) {
                Hold hold = hold(ownerId);
                if (hold != null) {
                    services.renewer.discard(hold);
                }
            }
            return null;
        });
    }

    /** Removes the lock whoever holds it ({@link LockProtocol#forceRelease}). */
    CompletableFuture<Boolean> forceRelease() {
        return Errors.call(protocol::forceRelease);
    }

    CompletableFuture<Boolean> locked() {
        return Errors.call(protocol::locked);
    }

    CompletableFuture<Long> ttl() {
        return Errors.call(protocol::ttl);
    }

    /**
     * The owner's hold count as Redis has it. When Redis has none although this client counted on a hold that existed
     * before the read was sent and still does (none of its acquisitions being released), that hold is gone from Redis
     * (removed, or run out): it is reported lost now ({@link io.dlock.internal.lease.LeaseRenewer#goneFromRedis})
     * rather than believed until the next renewal.
     */
    CompletableFuture<Integer> holdCount(long ownerId) {
        HoldId id = holdId(ownerId);
        Hold before = services.holds.heldCount(id) > 0 ? hold(ownerId) : null;
        return Errors.call(() -> protocol.holdCount(ownerId)).thenApply(count -> {
            if (count == 0 && before != null && hold(ownerId) == before && services.holds.heldCount(id) > 0) {
                services.renewer.goneFromRedis(before);
            }
            return count;
        });
    }

    @Override
    public String toString() {
        return "RedisLock{" + protocol.describe() + "}";
    }
}
