package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.Admission;
import io.dlock.internal.acquire.DeadlineRule;
import io.dlock.internal.acquire.OnCancelFuture;
import io.dlock.internal.acquire.Subject;
import io.dlock.internal.acquire.Waiter;
import io.dlock.internal.lock.RedisLocks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One asynchronous acquisition of a multi-lock for one owner: the first member through its own
 * {@code lockAsync}/{@code tryLockAsync}, then single attempts on the members not held yet at once
 * ({@link AttemptsAtOnce}), then the first one refused through its own acquisition, and so on; no thread is held
 * meanwhile. With
 * a fixed lease, the members before the last are taken with the watchdog and get the lease once the last is taken
 * (as {@link RedisMultiLock} does).
 *
 * <p>Its steps run on the threads that bring Redis's answers, Redis I/O threads included (the single attempts are
 * internal: {@link AttemptsAtOnce}), so {@link #start()}'s result may complete on one: {@link RedisMultiLock} hands
 * it to the client's executor before a user sees it.
 *
 * <p>Invariant: when {@link #start()}'s result ends otherwise than with {@code true} (false, failed, cancelled),
 * every member it took has been released, or a release failure is attached to the result (then a {@code false}
 * becomes a {@link LockException}) — except for a timed acquisition, which answers by its deadline and gives the
 * members back in the background (the owner's next acquisition of each waits for its release; a failure is logged).
 * A cancellation cancels the member acquisition under way (which gives back a hold it got just then), or is seen once
 * attempts at once are answered, and releases the members already taken; {@link #abandon} tells when that is done.
 */
final class MultiLockAsync implements Waiter {
    /** The longest the owner's next acquisition of a member waits for a cancelled acquisition's give-back. */
    private static final long GIVE_BACK_ORDER_BOUND_SECONDS = 30;

    private final String name;
    private final List<DistributedLock> members;
    private final long leaseMs;
    /** Absolute deadline in nanos, or {@link Long#MAX_VALUE} when waiting without a limit. */
    private final long deadlineNanos;
    /** The client's monotonic clock (ns). */
    private final LongSupplier nanoTime;
    /** Let in by the client's front door: registered for close (which fails it and waits for its give-back). */
    private final Admission admission;
    private final OnCancelFuture<Boolean> result = new OnCancelFuture<>();
    private final List<DistributedLock> taken = new ArrayList<>();
    /** The member acquisition under way that may wait, or null: abandoned when the result is cancelled. */
    private volatile RedisLocks.MemberAcquisition current;
    /** Once the result was cancelled: completes when what the acquisition took is given back ({@link #abandon}). */
    private final CompletableFuture<Void> givenBack = new CompletableFuture<>();
    /** The cleanup of the member acquisition abandoned by a cancel, or a completed future. */
    private volatile CompletableFuture<Void> abandonedMember = CompletableFuture.completedFuture(null);

    /**
     * @param members the members in acquisition order
     * @param owner   the owner acquiring
     * @param waitMs  the wait for the whole multi-lock, or {@link DistributedLock#WAIT_FOREVER}
     * @param leaseMs each member's lease, or {@link DistributedLock#LEASE_WATCHDOG}
     */
    MultiLockAsync(String name, List<DistributedLock> members, LockOwner owner, long waitMs, long leaseMs,
                   Acquisitions acquisitions) {
        this.name = name;
        this.members = members.stream().map(m -> m.as(owner)).toList();
        this.leaseMs = leaseMs;
        this.nanoTime = acquisitions::nanoTime;
        this.admission = acquisitions.begin(Subject.multiLock(name),
                waitMs < 0 ? DistributedLock.WAIT_FOREVER : TimeUnit.MILLISECONDS.toNanos(waitMs));
        this.deadlineNanos = admission.deadline() == AcquireLoop.NO_DEADLINE ? Long.MAX_VALUE : admission.deadline();
        result.onCancel(() -> {
            RedisLocks.MemberAcquisition running = current;
            if (running != null && running.result().cancel(false)) {
                abandonedMember = running.abandoned();
            }
            // on the cancelling thread, before cancel() returns: the owner's next acquisition of any member waits
            // for this one's give-back, which the step in flight sends once it is answered (one owner's acquisitions
            // stay in order; bounded, so that a give-back that never ends cannot hold the owner for ever)
            CompletableFuture<Void> done = givenBack.thenCombine(abandonedMember, (a, b) -> (Void) null)
                    .completeOnTimeout(null, GIVE_BACK_ORDER_BOUND_SECONDS, TimeUnit.SECONDS);
            for (DistributedLock member : this.members) {
                RedisLocks.orderAfter(member, done);
            }
        });
    }

    /**
     * Starts the acquisition.
     *
     * @return completes with whether every member is held, on whatever thread brings the last answer (a Redis I/O
     *         thread included); cancelling it gives the acquisition up ({@link #abandon})
     */
    CompletableFuture<Boolean> start() {
        admission.enter(this, result);
        waitFor(0); // the first member alone: see AttemptsAtOnce
        return result;
    }

    @Override
    public String kind() {
        return "multi-lock";
    }

    @Override
    public String name() {
        return name;
    }

    /** Fails the acquisition (the client is closing); what it took is given back as after any failure. */
    @Override
    public void fail(RuntimeException error) {
        result.completeExceptionally(error);
    }

    /** Completes once the acquisition ended holding every member, or ended otherwise and gave back what it took. */
    @Override
    public CompletableFuture<Void> finished() {
        return result.handle((held, error) -> error == null && held)
                .thenCompose(held -> held ? CompletableFuture.completedFuture(null) : givenBack);
    }

    /**
     * Gives the acquisition up: the result is cancelled unless it ended already; if it ended holding every member,
     * they are given back. So the caller that gives up holds nothing (the interrupt rule of
     * {@link io.dlock.internal.acquire.SyncWaits#awaitOrAbandon}).
     *
     * @return completes (never exceptionally) when what the acquisition took is given back, or, for a timed
     *         acquisition, at its deadline plus the grace at the latest ({@link RedisMultiLock#giveBackInBackground})
     */
    CompletableFuture<Void> abandon() {
        if (!result.cancel(false) && !result.isCompletedExceptionally() && result.join()) {
            rollBack(null, false); // it ended holding every member just then
        }
        return givenBack.thenCombine(abandonedMember, (a, b) -> (Void) null);
    }

    /**
     * Takes the members from {@code index} on: single attempts on all of them at once when two or more are left
     * ({@link AttemptsAtOnce}), then a wait for the first one refused ({@link #waitFor}).
     */
    private void next(int index) {
        if (result.isDone()) {
            rollBack(null, false);
            return;
        }
        if (members.size() - index < 2) {
            waitFor(index);
            return;
        }
        // not cancellable (not made current): a cancel meanwhile is seen once they are answered, and rolls them back
        AttemptsAtOnce.attempt(name, members, index, leaseMs).whenComplete((held, error) -> {
            if (error != null) {
                rollBack(Errors.unwrap(error), false);
                return;
            }
            synchronized (taken) {
                taken.addAll(members.subList(index, index + held));
            }
            int refused = index + held;
            if (refused < members.size() && deadlineNanos != Long.MAX_VALUE
                    && deadlineNanos - nanoTime.getAsLong() <= 0) {
                rollBack(null, true);
            } else {
                waitFor(refused);
            }
        });
    }

    /**
     * Takes member {@code index}, waiting for it if need be (the first member, the last one, or one refused a single
     * attempt), then goes on with the next ones ({@link #next}).
     */
    private void waitFor(int index) {
        if (result.isDone()) {
            rollBack(null, false);
            return;
        }
        if (index == members.size()) {
            settleLeases();
            return;
        }
        DistributedLock member = members.get(index);
        long memberLease = RedisMultiLock.leaseWhileTaking(index, members.size(), leaseMs);
        // whole ms left, as the public tryLockAsync took them: under 1 ms left is a single attempt
        long waitNanos = deadlineNanos == Long.MAX_VALUE ? DistributedLock.WAIT_FOREVER
                : TimeUnit.MILLISECONDS.toNanos(Math.max(0,
                        TimeUnit.NANOSECONDS.toMillis(deadlineNanos - nanoTime.getAsLong())));
        RedisLocks.MemberAcquisition acquisition = RedisLocks.acquireForMultiLock(member, waitNanos, memberLease);
        current = acquisition;
        if (result.isCancelled() && acquisition.result().cancel(false)) {
            abandonedMember = acquisition.abandoned();
        }
        acquisition.result().whenComplete((held, error) -> {
            if (error != null) {
                rollBack(Errors.unwrap(error), false);
            } else if (!held) {
                rollBack(null, true);
            } else {
                synchronized (taken) {
                    taken.add(member);
                }
                next(index + 1);
            }
        });
    }

    /**
     * Every member is taken: the ones taken before the last, with the watchdog, get the fixed lease now ({@link
     * RedisMultiLock#settleLeases}); then the result is true. One found gone makes the acquisition give back what it
     * took and start again while time is left.
     */
    private void settleLeases() {
        List<DistributedLock> early;
        synchronized (taken) {
            early = new ArrayList<>(taken.subList(0, Math.max(0, taken.size() - 1)));
        }
        RedisMultiLock.settleLeases(name, early, leaseMs).whenComplete((settled, error) -> {
            if (error != null) {
                rollBack(Errors.unwrap(error), false);
            } else if (!settled) {
                rollBack(null, false, true);
            } else if (!result.complete(true)) {
                rollBack(null, false); // cancelled just as the last member was taken
            }
        });
    }

    /**
     * Releases every member taken (all at once, in the reverse order: {@link RedisMultiLock#releaseAtOnce}), then
     * ends the result: with {@code error}, with false when {@code timedOut}, or not at all when it ended already
     * (cancelled).
     */
    private void rollBack(Throwable error, boolean timedOut) {
        rollBack(error, timedOut, false);
    }

    /**
     * As {@link #rollBack(Throwable, boolean)}; with {@code again} (a member was gone when the lease was set), it then
     * starts over while time is left, else ends with false.
     */
    private void rollBack(Throwable error, boolean timedOut, boolean again) {
        List<DistributedLock> toRelease;
        synchronized (taken) {
            toRelease = new ArrayList<>(taken);
            taken.clear();
        }
        if (deadlineNanos != Long.MAX_VALUE && !again) {
            // the deadline rule: a timed acquisition answers within the grace, and gives back in the background
            long graceNanos = TimeUnit.MILLISECONDS.toNanos(DeadlineRule.GRACE_MS);
            RedisMultiLock.giveBackInBackground(name, toRelease,
                    Math.max(0, deadlineNanos + graceNanos - nanoTime.getAsLong())).thenRun(() -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else if (timedOut) {
                    result.complete(false);
                }
                givenBack.complete(null);
            });
            return;
        }
        // every release at once, failures in the members' reverse order; a member whose hold is gone already (lease
        // ran out, removed) had nothing left to give back
        CompletableFuture<RuntimeException> released = RedisMultiLock.releaseAtOnce(name, toRelease,
                "giving back the members taken", true);
        released.thenAccept(releaseFailure -> {
            if (error != null) {
                if (releaseFailure != null) {
                    error.addSuppressed(releaseFailure);
                }
                result.completeExceptionally(error);
            } else if (releaseFailure != null) {
                result.completeExceptionally(releaseFailure);
            } else if (again && (deadlineNanos == Long.MAX_VALUE || deadlineNanos - nanoTime.getAsLong() > 0)) {
                next(0);
            } else if (timedOut || again) {
                result.complete(false);
            }
            if (result.isDone()) {
                givenBack.complete(null); // not while an acquisition started again may take members
            }
        });
    }
}
