package io.dlock.reactor;

import io.dlock.DistributedLock;
import io.dlock.FencedLock;
import io.dlock.LockClient;
import io.dlock.LockOwner;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One acquisition of a {@link ReactiveLock}, emitted by its {@code lock} and {@code tryLock} Monos: the lock is held
 * by {@link #owner()}, an owner made for the subscription that acquired it (never a thread), until {@link #unlock()}
 * or the lease ends. Release it exactly once, on whatever thread.
 *
 * <p>Thread-safe. Nothing here blocks: {@link #unlock()} and {@link #extendLease(Duration)} are lazy Monos that do
 * their work when subscribed, and the other methods answer from memory.
 */
public final class ReactiveHold {
    private final LockClient client;
    private final DistributedLock view;
    private final LockOwner owner;
    private final Long token;
    private final AtomicBoolean released = new AtomicBoolean();

    private ReactiveHold(LockClient client, DistributedLock view, LockOwner owner, Long token) {
        this.client = client;
        this.view = view;
        this.owner = owner;
        this.token = token;
    }

    /** @return the name of the lock held (a multi-lock's description, as {@link DistributedLock#getName()}) */
    public String lockName() {
        return view.getName();
    }

    /**
     * @return the owner holding the lock: a {@link io.dlock.LockClient#newOwner() new owner} of the subscription
     *         that acquired it. {@code lock.as(owner())} on the core lock acts on this hold.
     */
    public LockOwner owner() {
        return owner;
    }

    /**
     * @return the fencing token this acquisition drew, for a hold of a {@link ReactiveLockClient#getFencedLock fenced
     *         lock}; empty for every other kind
     */
    public OptionalLong fencingToken() {
        return token == null ? OptionalLong.empty() : OptionalLong.of(token);
    }

    /**
     * How long the hold is known to be valid, without a round trip ({@link DistributedLock#leaseValidFor()}).
     *
     * @return {@link Duration#ZERO} once released or lost
     */
    public Duration leaseValidFor() {
        return view.leaseValidFor();
    }

    /**
     * Releases the hold when subscribed. The first subscription releases it and completes when Redis answered;
     * later ones complete at once without sending anything, so that a release written in several places of a
     * pipeline ({@code withLock}'s complete, error and cancel paths) releases once.
     *
     * @return completes empty when released; fails with {@link IllegalMonitorStateException} when the hold was lost
     *         meanwhile (another client force-unlocked it, the lease ended), or with {@link io.dlock.LockException}
     *         when Redis failed (the hold then ends when its current lease runs out)
     */
    public Mono<Void> unlock() {
        return Mono.defer(() -> released.compareAndSet(false, true)
                ? Grants.call(view::unlockAsync)
                : Mono.empty());
    }

    /**
     * Sets a fixed lease on the hold from now on, when subscribed ({@link DistributedLock#extendLease(Duration)}).
     *
     * @param lease from 1 ms to {@link DistributedLock#MAX_LEASE}
     * @return completes empty when extended; fails with {@link io.dlock.LockLostException} when the hold is gone,
     *         {@link IllegalMonitorStateException} when it is not held any more
     * @throws NullPointerException     when {@code lease} is null
     * @throws IllegalArgumentException when it is out of range, naming the lock
     */
    public Mono<Void> extendLease(Duration lease) {
        Checks.lease("lock", lockName(), "lease", lease);
        return Grants.call(() -> view.extendLeaseAsync(lease));
    }

    /** Gives the hold back without a subscriber (a grant nobody received); never throws. */
    void giveBack() {
        if (released.compareAndSet(false, true)) {
            try {
                view.unlockAsync();
            } catch (RuntimeException ignored) {
                // the client is closed or the hold is gone: nothing is left to give back
            }
        }
    }

    /**
     * Fails with {@link io.dlock.LockLostException} when the client reports this hold lost ({@link LossWatch}): any
     * hold of this owner, which only this subscription has.
     */
    Mono<Void> lost() {
        return LossWatch.watch(client, event -> event.ownerId() == owner.id(), () -> view.leaseValidFor().isZero(),
                lockName(), "lock '" + lockName() + "': the hold of " + owner);
    }

    static ReactiveHold of(LockClient client, DistributedLock view, LockOwner owner) {
        return new ReactiveHold(client, view, owner, null);
    }

    static ReactiveHold fenced(LockClient client, FencedLock view, LockOwner owner, long token) {
        return new ReactiveHold(client, view, owner, token);
    }

    @Override
    public String toString() {
        return "ReactiveHold[" + lockName() + ", " + owner + (token == null ? "" : ", token " + token) + "]";
    }
}
