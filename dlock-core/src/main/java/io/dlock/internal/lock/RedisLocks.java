package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.DistributedReadWriteLock;
import io.dlock.FencedLock;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.Callers;

import java.util.concurrent.CompletableFuture;

/**
 * Where a client's lock objects are made: each is the one {@link RedisLock} over its kind's {@link LockProtocol},
 * behind an {@link OwnerView} acting for the calling thread. The name is validated here
 * ({@link LockNames#requireValid}); the objects are cheap and hold no state of their own.
 */
public final class RedisLocks {
    private RedisLocks() {
    }

    /** @return the plain reentrant lock {@code name} ({@link PlainProtocol}) */
    public static DistributedLock plain(LockServices services, String name) {
        return OwnerView.ofCallingThread(new RedisLock(new PlainProtocol(context(services, name, LockKind.PLAIN))));
    }

    /** @return the fair lock {@code name} ({@link FairProtocol}) */
    public static DistributedLock fair(LockServices services, String name) {
        return OwnerView.ofCallingThread(new RedisLock(new FairProtocol(context(services, name, LockKind.FAIR))));
    }

    /** @return the fenced lock {@code name} ({@link FencedProtocol}) */
    public static FencedLock fenced(LockServices services, String name) {
        return new FencedOwnerView(new RedisLock(new FencedProtocol(context(services, name, LockKind.FENCED))), 0,
                true);
    }

    /**
     * @return the lock of a candidate of the leader election {@code name}: the fenced lock {@code name} acting for
     *         {@code owner}, with a {@link LeaderRecord} of {@code identity} ({@link ElectionLock})
     */
    public static ElectionLock election(LockServices services, String name, io.dlock.ClientIdentity identity,
                                        io.dlock.LockOwner owner) {
        LockContext context = context(services, name, LockKind.FENCED);
        LeaderRecord record = new LeaderRecord(context.name(), identity);
        return new ElectionLock(new RedisLock(new FencedProtocol(context, record)), owner.id(), record);
    }

    /** @return the read-write lock {@code name} ({@link ReadWriteRedisLock}) */
    public static DistributedReadWriteLock readWrite(LockServices services, String name) {
        return new ReadWriteRedisLock(services, name);
    }

    /**
     * What a multi-lock needs to know of a member ({@code io.dlock.internal.multilock}).
     *
     * @param clientId the id of the client the lock object belongs to
     * @param name     the lock's name
     * @param kind     its kind
     */
    public record Identity(String clientId, String name, LockKind kind) {
    }

    /**
     * @return who {@code lock} is, or null when it is not a lock object of a dlock client (another implementation of
     *         the interface)
     */
    public static Identity identify(DistributedLock lock) {
        if (lock instanceof LockApi api) {
            RedisLock core = api.core();
            LockContext context = core.protocol.context();
            return new Identity(core.services.settings().clientId(), context.name(), context.kind());
        }
        return null;
    }

    /**
     * Gives a multi-lock's acquisition of {@code member}, taken with the watchdog while the multi-lock waited for its
     * other members, the multi-lock's fixed lease from now ({@link LeaseExtension#settleMultiLockLease}).
     *
     * @param member  a lock object of a dlock client ({@link #identify} knows it), acting for the owner
     * @param leaseMs the fixed lease in ms
     * @return completes on a Redis I/O thread (or at once) when done; fails with
     *         {@link IllegalMonitorStateException} or {@link io.dlock.LockLostException} when the hold is gone, or
     *         with the {@link io.dlock.LockException} of a Redis failure
     */
    public static CompletableFuture<Void> settleMultiLockLease(DistributedLock member, long leaseMs) {
        LockApi api = (LockApi) member;
        return LeaseExtension.settleMultiLockLease(api.core(), api.owner(), leaseMs);
    }

    /**
     * One acquisition of a multi-lock's member, as the member's public {@code tryLockAsync} makes it but without its
     * hand-over to the client's executor (the same {@link Callers#toCaller} rule on the thread that completes it):
     * the multi-lock goes on from the answer on the thread that brings it (a Redis I/O thread) and hands only its own
     * result to its caller, saving a thread hop per member (S12: the hop of the single attempts alone took 2,800
     * ops/s to 3,400).
     *
     * @param result    completes with whether the owner holds the member now, on a Redis I/O thread or at once: never
     *                  give it to a user's callback as it is; fails as the public acquisition fails (the client closed,
     *                  Redis failed). Cancelling it gives the acquisition up ({@link AcquireLoop#abandon}: a grant
     *                  that raced the cancel is given back), as cancelling the public future does.
     * @param abandoned completes once a cancel of {@code result} has been cleaned up: nothing of the acquisition is
     *                  left in Redis (the owner's next acquisition of the member waits for the same,
     *                  {@link io.dlock.internal.lease.HoldTable#trackCleanup}); never completes without a cancel
     */
    public record MemberAcquisition(CompletableFuture<Boolean> result, CompletableFuture<Void> abandoned) {
    }

    /**
     * Starts {@link MemberAcquisition one acquisition} of {@code member} for a multi-lock.
     *
     * @param member    a lock object of a dlock client ({@link #identify} knows it), acting for the owner
     * @param waitNanos 0 for a single attempt, a wait in ns, or {@link DistributedLock#WAIT_FOREVER}
     * @param leaseMs   the lease in ms (checked by the caller), or {@link DistributedLock#LEASE_WATCHDOG}
     */
    public static MemberAcquisition acquireForMultiLock(DistributedLock member, long waitNanos, long leaseMs) {
        LockApi api = (LockApi) member;
        RedisLock core = api.core();
        long owner = api.owner();
        CompletableFuture<Void> abandoned = new CompletableFuture<>();
        AcquireLoop loop;
        try {
            loop = core.startAcquire(waitNanos, leaseMs, owner);
        } catch (RuntimeException e) {
            return new MemberAcquisition(CompletableFuture.failedFuture(e), abandoned);
        }
        CompletableFuture<Boolean> result = Callers.toCaller(Runnable::run, loop::abandon, cleanup -> {
            core.services.holds().trackCleanup(core.holdId(owner), cleanup);
            cleanup.whenComplete((ok, error) -> abandoned.complete(null));
        }, loop.result(), Errors::unwrap);
        return new MemberAcquisition(result, abandoned);
    }

    /**
     * Releases one hold of the member's owner as the cleanup of a multi-lock acquisition (a give-back of what it
     * took): the owner's next acquisition of the member starts after this release
     * ({@link io.dlock.internal.lease.HoldTable#trackCleanup}, the rule of one attempt of an owner in flight per
     * lock), whether the acquisition waits for it (untimed) or answers its caller by its deadline meanwhile (timed,
     * while Redis is silent). A release that fails ends as any failed release does (the client stops renewing the
     * hold, which ends in Redis with its lease).
     *
     * @param member a lock object of a dlock client, acting for the owner
     * @return completes, on the thread that brings Redis's answer, when Redis answered the release; exceptionally
     *         with {@link IllegalMonitorStateException} when the hold was gone already, or with the failure
     */
    public static CompletableFuture<Void> releaseAsCleanup(DistributedLock member) {
        LockApi api = (LockApi) member;
        RedisLock core = api.core();
        long owner = api.owner();
        CompletableFuture<Void> released = Errors.call(() -> core.release(owner));
        core.services.holds().trackCleanup(core.holdId(owner), released);
        return released;
    }

    /**
     * Makes the next acquisition of {@code member} by its owner (a view's, or the calling thread's) start only after
     * {@code cleanup} completed ({@link io.dlock.internal.lease.HoldTable#trackCleanup}): for a multi-lock cancelled
     * while its give-back of the members is not yet sent, so that the owner's acquisitions stay in order.
     */
    public static void orderAfter(DistributedLock member, CompletableFuture<?> cleanup) {
        LockApi api = (LockApi) member;
        RedisLock core = api.core();
        core.services.holds().trackCleanup(core.holdId(api.owner()), cleanup);
    }

    private static LockContext context(LockServices services, String name, LockKind kind) {
        return new LockContext(services, LockNames.requireValid(name), kind);
    }
}
