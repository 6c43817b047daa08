package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockException;
import io.dlock.LockLostException;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.AcquireSteps;
import io.dlock.internal.acquire.Admission;
import io.dlock.internal.acquire.LocalGate;
import io.dlock.internal.acquire.Subject;
import io.dlock.internal.acquire.WakeMode;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.HoldTable.Mark;
import io.dlock.internal.lease.RenewalSender;
import io.dlock.internal.script.ScriptCall;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The one lock implementation: drives a kind's {@link LockProtocol}, which describes the calls, and does everything
 * that is the same for every kind, once: acquisitions (the wait loop, the lost-reply rule, waiting marks, grant
 * records, hold-gone handling, the local gate and cohort, replica confirmation, events, cleanups of abandoned
 * acquisitions), releases with their hand-offs and failures ({@link HandOffRelease}), forced releases and reads, for
 * any owner. The public API over it is
 * {@link LockApi}, served by {@link OwnerView} for the calling thread or a fixed owner.
 *
 * <p>Thread-safe and immutable: every hold and wait lives in the client's {@link LockServices}.
 */
final class RedisLock {
    /** A local wait that needs no place in Redis first. */
    private static final BooleanSupplier ALWAYS = () -> true;

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
        return services.holds().find(holdId(ownerId));
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
        HoldTable.Release release = services.holds().releasing(holdId(ownerId));
        Hold hold = release.hold();
        CompletableFuture<Long> reply = Errors.call(() -> sendRelease(ownerId, hold));
        return reply.handle((released, error) -> {
            if (error != null) {
                throw releaseFailed(ownerId, release, error);
            }
            if (released == null) {
                release.notHeld();
                throw new IllegalMonitorStateException(protocol.describe() + " is not held by owner " + field
                        + " (never acquired, already released, or its lease expired)");
            }
            release.released(released >= 1L);
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
    private RuntimeException releaseFailed(long ownerId, HoldTable.Release release, Throwable error) {
        RuntimeException failure = Errors.toApi(error, name, "unlock");
        if (!(failure instanceof LockException)) {
            release.failed();
            return failure;
        }
        Hold hold = release.hold();
        long endsWithinMs = hold == null ? services.settings().watchdogMs()
                : Math.max(0, TimeUnit.NANOSECONDS.toMillis(hold.validForNanos(services.clock().nanoTime())));
        release.outcomeUnknown();
        if (hold == null || hold.acquisitions() == 0) {
            services.cohorts().released(name, ownerId);
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
        // the thread that asks, named in a hold record (HoldRecord) whichever thread sends the attempt that wins
        String thread = Thread.currentThread().getName();
        Admission admission = services.acquisitions().begin(Subject.lock(protocol.context().kind(), name, ownerId),
                waitNanos);
        long waitMillis = waitNanos == DistributedLock.WAIT_FOREVER ? DistributedLock.WAIT_FOREVER
                : waitNanos == 0 ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos));
        AcquireLoop.Attempt attempt = admission.followed()
                ? () -> followedAttempt(admission, ownerId, leaseMs, waitMillis, thread)
                : () -> confirmedAttempt(ownerId, leaseMs, waitMillis, thread);
        AcquireSteps steps = new AcquireSteps("lock", name, attempt, () -> release(ownerId),
                () -> Errors.call(() -> giveUp(ownerId)), List.of(protocol.wakeupChannel(ownerId)),
                protocol.everyMessageWakesAllWaiters() ? WakeMode.ALL : WakeMode.ONE, localGate(ownerId, leaseMs, thread),
                cleanup -> services.holds().trackCleanup(holdId(ownerId), cleanup), protocol.channelPerOwner());
        AcquireLoop loop = new AcquireLoop(steps, services.acquisitions().waiting(), admission.deadline(),
                waitNanos == 0);
        admission.enter(loop, loop.result());
        // after what an abandoned acquisition of the same owner leaves to clean up (HoldTable#trackCleanup), on either
        // side of a read-write lock (LockProtocol#otherSideField)
        services.holds().runAfterCleanups(() -> holdId(ownerId), () -> {
            String other = protocol.otherSideField(ownerId);
            if (other == null) {
                loop.start();
            } else {
                services.holds().runAfterCleanups(() -> new HoldId(protocol.holdKey(), other), loop::start);
            }
        });
        return loop;
    }

    /**
     * {@link #confirmedAttempt} for an acquisition that a lock event listener follows: reports the attempt, and a
     * grant before the loop (and so the caller) learns of it.
     */
    private CompletableFuture<Long> followedAttempt(Admission followed, long ownerId, long leaseMs, long waitMillis,
                                                    String thread) {
        followed.attempted();
        return confirmedAttempt(ownerId, leaseMs, waitMillis, thread).thenApply(ttl -> {
            if (ttl == null) {
                Hold hold = hold(ownerId);
                if (hold != null) {
                    followed.granted(0, hold);
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
    private CompletableFuture<Long> confirmedAttempt(long ownerId, long leaseMs, long waitMillis, String thread) {
        ReplicaSync sync = services.redis().replicaSync();
        // a re-entry is judged before the attempt is sent: once sent, its own grant may already be tracked when the
        // check runs, and a first acquisition would pass for a re-entry, unconfirmed
        boolean reentry = sync.enabled() && hold(ownerId) != null;
        CompletableFuture<Long> attempt = Errors.call(() -> attempt(ownerId, leaseMs, waitMillis, thread));
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
                    services.holds().discard(hold);
                }
            }
            return null;
        });
    }

    // ---- the protocol driven: one attempt, a give-up, a release ----

    /**
     * One attempt for {@code ownerId}, by the rules every kind follows: a waiter keeps its kind's waiting mark from its
     * first attempt; the call goes through the lost-reply rule ({@link io.dlock.internal.acquire.PendingAcquisitions#track})
     * with the counts the client knows and counts on; a grant is recorded ({@link #recordAttemptGrant}) before the
     * caller hears of it; a grant, a gone hold or a refusal the kind throws ends the wait (the mark goes); a gone hold
     * fails the attempt ({@link #holdGone}).
     *
     * @param waitMillis the caller's whole wait: 0 for a single attempt, {@code WAIT_FOREVER}, or a positive time
     * @param thread     the name of the thread that began the acquisition, for a hold record ({@link HoldRecord})
     * @return null when acquired, else how long to sleep at most (ms; negative when unknown)
     */
    CompletableFuture<Long> attempt(long ownerId, long leaseMs, long waitMillis, String thread) {
        HoldId id = holdId(ownerId);
        boolean waits = waitMillis != 0;
        Mark mark = protocol.waitingMark();
        long sentAt = services.clock().nanoTime();
        long waited = waits && mark != null ? services.holds().markSince(id, mark, sentAt) : 0;
        AcquireRequest request = new AcquireRequest(ownerId, protocol.context().effectiveLease(leaseMs), waits,
                Long.toString(services.holds().heldCount(id)), waited, services.holds().find(id),
                field -> services.holds().knownCount(new HoldId(protocol.holdKey(), field)), thread);
        return services.pending().<Object>track(id, known -> protocol.acquire(request, known).send(services.redis().scripts()),
                reply -> {
                    AcquireReply read;
                    try {
                        read = protocol.readAcquire(reply, request);
                    } catch (RuntimeException refused) {
                        endWait(id, mark);
                        throw refused;
                    }
                    if (read instanceof AcquireReply.Busy busy) {
                        return busy.sleepMs();
                    }
                    endWait(id, mark);
                    if (read instanceof AcquireReply.HoldGone) {
                        throw holdGone(id);
                    }
                    Hold hold = recordAttemptGrant(ownerId, leaseMs, sentAt);
                    Long token = ((AcquireReply.Granted) read).fencingToken();
                    if (token != null) {
                        hold.fencingToken(token);
                    }
                    return null;
                });
    }

    /** The wait of {@code id} is over: it keeps no waiting mark (a grant or a refusal removed it in Redis). */
    private void endWait(HoldId id, Mark mark) {
        if (mark != null) {
            services.holds().unmark(id, mark);
        }
    }

    /**
     * Records a grant of an attempt in Redis (the plain lock's group attempt included): with the hold table
     * ({@link #recordGrant}), and, for a kind whose owners wait behind each other in the client, as the local holder
     * ({@link LocalCohorts#acquired}). The one place a grant by Redis becomes this client's knowledge.
     *
     * @param sentAt when the granting request was sent (the client's monotonic clock)
     */
    Hold recordAttemptGrant(long ownerId, long leaseMs, long sentAt) {
        Hold hold = recordGrant(protocol, protocol.holdField(ownerId), ownerId, leaseMs, sentAt);
        LocalWait localWait = protocol.localWait();
        if (localWait != null && !localWait.shared()) {
            services.cohorts().acquired(name, ownerId, hold);
        }
        return hold;
    }

    /**
     * Records a grant with the client's hold table: a first hold of the owner or one more acquisition of it, of the
     * kind {@code grantedAs} describes (a hand-off from a writer may grant read holds).
     */
    Hold recordGrant(LockProtocol grantedAs, String field, long ownerId, long leaseMs, long sentAt) {
        LockContext context = grantedAs.context();
        RenewalSender renewal = grantedAs.renewal();
        return services.holds().granted(context.kind(), name, protocol.holdKey(), field, ownerId, leaseMs, sentAt,
                renewal);
    }

    /**
     * An acquisition found the hold it would re-enter gone from Redis ({@link AcquireReply#HOLD_GONE}): removed by a
     * forceUnlock, a failover or a restart, or run out, so another owner may have held the lock since. Reports the
     * loss to the lease-lost listeners ({@code REMOVED}, or {@code EXPIRED} when its lease had run out by this client's
     * count) and forgets the hold: the owner's outer acquisitions are gone with it.
     *
     * @return the exception for the caller of the acquisition
     */
    LockLostException holdGone(HoldId id) {
        Hold hold = services.holds().find(id);
        if (hold != null) {
            services.holds().goneFromRedis(hold);
        }
        return new LockLostException(name, protocol.describe() + ": the hold of owner " + id.field() + " that this "
                + "acquisition would re-enter is gone from Redis (removed by a forceUnlock, a failover or a restart, "
                + "or its lease ran out), so another owner may have held the lock meanwhile; nothing was acquired and "
                + "the outer acquisitions are void (what the lock protected may have been changed)");
    }

    /** @return the acquire scripts' "held" argument for {@code ownerId} ({@link io.dlock.internal.lease.HoldTable#heldCount}) */
    String heldArg(long ownerId) {
        return Long.toString(services.holds().heldCount(holdId(ownerId)));
    }

    /**
     * Removes what failed attempts of {@code ownerId} left in Redis once it stops waiting without the lock (timeout,
     * interrupt, cancellation, failure): its waiting mark, if it may have left one (a failure to withdraw it is left
     * to the mark's expiry), then what an attempt without a reply may have taken
     * ({@link io.dlock.internal.acquire.PendingAcquisitions#dropIfUnanswered}). Never fails.
     */
    CompletableFuture<Void> giveUp(long ownerId) {
        HoldId id = holdId(ownerId);
        Mark mark = protocol.waitingMark();
        CompletableFuture<Void> withdrawn = CompletableFuture.completedFuture(null);
        if (mark != null && services.holds().unmark(id, mark)) {
            withdrawn = Errors.call(() -> protocol.withdrawMark(ownerId).<Long>send(services.redis().scripts()))
                    .handle((removed, error) -> null);
        }
        return withdrawn.thenCompose(ignored -> services.pending().dropIfUnanswered(id,
                (lease, known) -> protocol.dropUnknown(ownerId, lease, known).send(services.redis().scripts())));
    }

    /** Sends the release of one acquisition, through the kind's hand-off when it has one ({@link HandOffRelease}). */
    private CompletableFuture<Long> sendRelease(long ownerId, Hold hold) {
        String countAfter = Long.toString(services.holds().countAfterRelease(holdId(ownerId), hold).orElse(-1));
        ScriptCall release = protocol.release(ownerId, hold, countAfter);
        HandOff handOff = protocol.handOff(ownerId, hold, countAfter);
        return handOff == null ? release.send(services.redis().scripts())
                : HandOffRelease.send(this, ownerId, hold, handOff, release);
    }

    /**
     * @return the gate through which {@code ownerId}'s acquisition waits behind other owners of this client and takes
     *         hand-offs from them ({@link LocalCohort}), as the kind describes it; null when it has none
     */
    private LocalGate localGate(long ownerId, long leaseMs, String thread) {
        LocalWait wait = protocol.localWait();
        if (wait == null) {
            return null;
        }
        BooleanSupplier placeInRedis = ALWAYS;
        if (wait.afterPlaceInRedis()) {
            HoldId id = holdId(ownerId);
            Mark mark = protocol.waitingMark();
            placeInRedis = () -> services.holds().marked(id, mark);
        }
        return new CohortGate(services.cohorts(), name, ownerId, leaseMs, wait.refreshNanos(), placeInRedis,
                wait.shared(), wait.afterPlaceInRedis(), thread);
    }

    /**
     * Removes the lock whoever holds it ({@link LockProtocol#forceRelease}) and forgets this client's records of it:
     * before sending, or, for a kind whose forced release may leave the lock alone, once Redis removed it.
     */
    CompletableFuture<Boolean> forceRelease() {
        boolean conditional = protocol.forceReleaseOnlyInOwnMode();
        if (!conditional) {
            forgetAll();
        }
        CompletableFuture<Long> reply = Errors.call(() -> protocol.forceRelease().send(services.redis().scripts()));
        return protocol.context().mapErrors(reply.thenApply(removed -> {
            boolean wasRemoved = removed != null && removed == 1L;
            if (wasRemoved && conditional) {
                forgetAll();
            }
            return wasRemoved;
        }), "forceUnlock");
    }

    /** Stops renewing every hold of this client on the lock and forgets what its owners knew of it locally. */
    private void forgetAll() {
        services.holds().discardAll(protocol.holdKey());
        services.cohorts().cleared(name);
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
     * (removed, or run out): it is reported lost now ({@link HoldTable#goneFromRedis})
     * rather than believed until the next renewal.
     */
    CompletableFuture<Integer> holdCount(long ownerId) {
        HoldId id = holdId(ownerId);
        Hold before = services.holds().heldCount(id) > 0 ? hold(ownerId) : null;
        return Errors.call(() -> protocol.holdCount(ownerId)).thenApply(count -> {
            if (count == 0 && before != null && hold(ownerId) == before && services.holds().heldCount(id) > 0) {
                services.holds().goneFromRedis(before);
            }
            return count;
        });
    }

    @Override
    public String toString() {
        return "RedisLock{" + protocol.describe() + "}";
    }
}
