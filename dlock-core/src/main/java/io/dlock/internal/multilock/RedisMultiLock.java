package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.LockLostException;
import io.dlock.LockOwner;
import io.dlock.MultiLock;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.Acquisitions;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.DeadlineRule;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.lock.PlainLockGroup;
import io.dlock.internal.lock.RedisLocks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.function.Function;

/**
 * The {@link MultiLock}: the members in the global order ({@link MemberOrder}), acting for the calling thread or, for a
 * view of {@link #as}, one fixed owner. Every operation is the members' own, in that order (releases in the reverse
 * order); the multi-lock keeps no state. Acquisitions take every member in one script when the members form a
 * {@link PlainLockGroup} (plain locks on one hash slot); otherwise the first member, then single attempts on the
 * members not held yet at once ({@link AttemptsAtOnce}), then a wait for the first one refused, and so on, each one
 * {@link MultiLockAsync}: the async methods hand its result to the client's executor, the sync ones wait for it
 * through the client's {@link SyncWaits} (blocking, interrupts and outages as on one member: every member wait is the
 * member's own acquisition, and an interrupt gives the acquisition up before the caller hears of it). A sync release
 * sends every member's release at once and blocks until all are answered (through the client's {@link SyncWaits},
 * uninterruptibly as a member's own release).
 */
public final class RedisMultiLock extends MultiLockQueries implements MultiLock {

    /**
     * @param clientId the client the members must belong to
     * @param locks    the members in any order
     * @throws IllegalArgumentException see {@link MemberOrder#sorted}
     */
    public static MultiLock of(String clientId, List<? extends DistributedLock> locks, Acquisitions acquisitions) {
        List<MemberOrder.Member> members = MemberOrder.sorted(clientId, locks);
        String name = MemberOrder.describe(members);
        List<DistributedLock> ordered = members.stream().map(MemberOrder.Member::lock).toList();
        return new RedisMultiLock(name, ordered, null, PlainLockGroup.of(name, ordered), acquisitions);
    }

    /** Takes every member in one script, or null: one after another. */
    private final PlainLockGroup group;
    /** The client's front door: acquisitions start there, and close fails them and waits for their give-backs. */
    private final Acquisitions acquisitions;
    /** The client's one way of blocking a caller on a future (releases and give-backs wait through it). */
    private final SyncWaits waits;
    /** The client's executor: async acquisitions complete their caller's future there ({@link Callers}). */
    private final Executor executor;

    private RedisMultiLock(String name, List<DistributedLock> members, LockOwner owner, PlainLockGroup group,
                           Acquisitions acquisitions) {
        super(name, members, owner);
        this.group = group;
        this.acquisitions = acquisitions;
        this.waits = acquisitions.waits();
        this.executor = acquisitions.executor();
    }

    @Override
    public MultiLock as(LockOwner owner) {
        return new RedisMultiLock(name, members, Objects.requireNonNull(owner, "owner"), group, acquisitions);
    }

    // --- sync acquisition -------------------------------------------------------------------------------------

    private enum Mode { UNINTERRUPTIBLE, INTERRUPTIBLE, TRY }

    /**
     * Takes every member in order or none: one {@link MultiLockAsync}, the same acquisition as the async methods', with
     * the calling thread waiting for its result through the client's {@link SyncWaits} (uninterruptibly for {@link
     * Mode#UNINTERRUPTIBLE}; otherwise an interrupt gives the acquisition up, and the caller hears of it once what it
     * took is given back, as on one member). Its steps run on the threads that bring Redis's answers, so the waiting
     * thread wakes once, when every member is held, not once per member.
     *
     * @param waitMs for {@link Mode#TRY}: the whole wait, or {@link #WAIT_FOREVER}
     * @return whether all are held (only TRY returns false)
     */
    private boolean acquire(Mode mode, long waitMs, long leaseMs) throws InterruptedException {
        checkLease(leaseMs);
        if (group != null) {
            return group.acquire(mode == Mode.TRY ? PlainLockGroup.waitNanos(waitMs) : WAIT_FOREVER, leaseMs,
                    ownerNow().id(), mode != Mode.UNINTERRUPTIBLE);
        }
        if (mode != Mode.UNINTERRUPTIBLE && Thread.interrupted()) {
            throw new InterruptedException(name + ": interrupted before acquiring");
        }
        MultiLockAsync acquisition = new MultiLockAsync(name, members, ownerNow(),
                mode == Mode.TRY ? waitMs : WAIT_FOREVER, leaseMs, acquisitions);
        CompletableFuture<Boolean> held = acquisition.start();
        return mode == Mode.UNINTERRUPTIBLE ? waits.awaitUninterruptibly(held)
                : waits.awaitOrAbandon(held, acquisition::abandon);
    }

    /**
     * @return the lease to take member {@code index} of {@code count} with: the multi-lock's for the last member;
     *         the watchdog for the others, so that none runs out while a later one is awaited
     */
    static long leaseWhileTaking(int index, int count, long leaseMs) {
        return index < count - 1 ? LEASE_WATCHDOG : leaseMs;
    }

    /**
     * Gives the members taken before the last, with the watchdog, the multi-lock's fixed lease, all at once: from now
     * on their leases run, at least as long as the last member's ({@link RedisLocks#settleMultiLockLease}).
     *
     * @param early the members taken before the last (acting for the owner)
     * @return completes with true when every one has the lease, false when one was gone (its hold ran out or was
     *         removed: the others may have the lease); fails with the one exception of {@link Failures} when Redis
     *         failed for one. Never fails otherwise (the caller gives back what it took either way).
     */
    static CompletableFuture<Boolean> settleLeases(String name, List<DistributedLock> early, long leaseMs) {
        if (leaseMs == LEASE_WATCHDOG || early.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        Failures failures = new Failures(name, "setting the lease of the members taken before the last");
        AtomicBoolean gone = new AtomicBoolean();
        CompletableFuture<?>[] each = early.stream().map(member -> Errors.<Void>call(
                () -> RedisLocks.settleMultiLockLease(member, leaseMs)).handle((ok, error) -> {
                    Throwable cause = error == null ? null : Errors.unwrap(error);
                    if (cause instanceof IllegalMonitorStateException || cause instanceof LockLostException) {
                        gone.set(true);
                    } else if (cause != null) {
                        failures.add(member.getName(), cause);
                    }
                    return null;
                })).toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(each).thenCompose(v -> {
            RuntimeException failed = failures.toException(early.size() + 1);
            return failed != null ? CompletableFuture.failedFuture(failed)
                    : CompletableFuture.completedFuture(!gone.get());
        });
    }

    /** Refuses a lease below 1 ms or above {@link #MAX_LEASE}, before anything is sent. */
    private void checkLease(long leaseMs) {
        if (leaseMs != LEASE_WATCHDOG && leaseMs < 1) {
            throw new IllegalArgumentException(name + ": leaseTime must be at least 1 ms or LEASE_WATCHDOG, was "
                    + leaseMs + " ms");
        }
        if (leaseMs > MAX_LEASE.toMillis()) {
            throw new IllegalArgumentException(name + ": leaseTime " + leaseMs + " ms is longer than the longest lease, "
                    + MAX_LEASE.toDays() + " days (use LEASE_WATCHDOG for a hold that lasts while its holder lives)");
        }
    }

    /**
     * Releases every member of {@code held} in the reverse order, going on past failures, blocking until Redis
     * answered each ({@link #releaseAtOnce}).
     *
     * @return null, or the one exception naming every failure ({@link Failures})
     */
    private RuntimeException releaseAll(List<DistributedLock> held, String operation) {
        return waits.awaitUninterruptibly(releaseAtOnce(name, held, operation, false));
    }

    /**
     * Gives back what a timed acquisition took, in the reverse order, without letting Redis hold its caller past
     * its deadline plus {@link DeadlineRule#GRACE_MS} (the deadline rule: the caller hears by then even while Redis
     * is silent). The grace is the acquisition's, not one more: the member wait that just ended by the rule may have
     * used it up already (a multi-lock's wait answered 1,051 ms into a 1,000 ms wait when both were spent one after
     * the other). A release that fails is logged naming the member and ends as any failed release does ({@link
     * RedisLocks#releaseAsCleanup}).
     *
     * @param leftNanos how long the caller may still wait: to the acquisition's deadline plus the grace
     * @return completes (never exceptionally) when Redis answered every release, or at the deadline plus the grace,
     *         whichever is first: while Redis answers in time, the members are free again when the acquisition
     *         reports its outcome
     */
    static CompletableFuture<Void> giveBackInBackground(String name, List<DistributedLock> taken, long leftNanos) {
        CompletableFuture<?>[] each = new CompletableFuture<?>[taken.size()];
        for (int i = taken.size() - 1; i >= 0; i--) {
            DistributedLock member = taken.get(i);
            each[i] = RedisLocks.releaseAsCleanup(member).handle((ok, error) -> {
                Throwable cause = error == null ? null : Errors.unwrap(error);
                if (cause != null && !(cause instanceof IllegalMonitorStateException)) {
                    LOG.warn("{}: giving back member '{}' failed: {}", name, member.getName(), cause.getMessage());
                }
                return null;
            });
        }
        return CompletableFuture.allOf(each).completeOnTimeout(null, leftNanos, TimeUnit.NANOSECONDS);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RedisMultiLock.class);

    /**
     * Sends the release of every member of {@code held}, in the reverse order, all before any reply is awaited, and
     * completes once Redis answered each. So a waiter woken by the first member's unlock message finds the others
     * released as well (their releases reached Redis before its attempt could), instead of attempting while they are
     * still held and sleeping again (bench S12S: about two needless attempts per acquisition when each release waited
     * for the one before).
     *
     * @param goneIsGivenBack whether this is an acquisition's give-back, each release then its cleanup
     *                        ({@link RedisLocks#releaseAsCleanup}) and a member whose hold is gone already
     *                        ({@link IllegalMonitorStateException}) one with nothing to give back, rather than the
     *                        caller's unlock (the public {@code unlockAsync}), where that is a failure
     * @return completes, never exceptionally, with null or the one exception naming every failure in the members'
     *         reverse order ({@link Failures})
     */
    static CompletableFuture<RuntimeException> releaseAtOnce(String name, List<DistributedLock> held, String operation,
                                                             boolean goneIsGivenBack) {
        int count = held.size();
        Throwable[] errors = new Throwable[count];
        CompletableFuture<?>[] each = new CompletableFuture<?>[count];
        for (int i = count - 1; i >= 0; i--) {
            int at = i;
            // a give-back is the acquisition's cleanup, which the owner's next acquisition of the member waits for;
            // an unlock is the caller's, with the public unlock's checks
            each[i] = Errors.call(() -> goneIsGivenBack ? RedisLocks.releaseAsCleanup(held.get(at))
                    : held.get(at).unlockAsync()).handle((ok, error) -> {
                errors[at] = error == null ? null : Errors.unwrap(error);
                return null;
            });
        }
        return CompletableFuture.allOf(each).thenApply(v -> {
            Failures failures = new Failures(name, operation);
            for (int i = count - 1; i >= 0; i--) {
                Throwable error = errors[i];
                if (error != null && !(goneIsGivenBack && error instanceof IllegalMonitorStateException)) {
                    failures.add(held.get(i).getName(), error);
                }
            }
            return failures.toException(count);
        });
    }

    @Override
    public void lock() {
        lock(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        try {
            acquire(Mode.UNINTERRUPTIBLE, WAIT_FOREVER, leaseMillis(leaseTime, unit));
        } catch (InterruptedException e) {
            throw new IllegalStateException("not interruptible", e); // members' lock() never throws it
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lockInterruptibly(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquire(Mode.INTERRUPTIBLE, WAIT_FOREVER, leaseMillis(leaseTime, unit));
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Mode.TRY, 0, LEASE_WATCHDOG);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, LEASE_WATCHDOG, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        long waitMs = waitTime == WAIT_FOREVER || unit.toMillis(waitTime) > MAX_LEASE.toMillis() ? WAIT_FOREVER
                : unit.toMillis(waitTime);
        if (waitMs < 0 && waitTime != WAIT_FOREVER) {
            throw new IllegalArgumentException(name + ": waitTime must be >= 0 or WAIT_FOREVER, was " + waitTime);
        }
        return acquire(Mode.TRY, waitMs, leaseMillis(leaseTime, unit));
    }

    private static long leaseMillis(long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return leaseTime == LEASE_WATCHDOG ? LEASE_WATCHDOG : unit.toMillis(leaseTime);
    }

    // --- release ----------------------------------------------------------------------------------------------

    @Override
    public void unlock() {
        RuntimeException failed = releaseAll(owned(), "unlock");
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public boolean forceUnlock() {
        Failures failures = new Failures(name, "forceUnlock");
        boolean any = false;
        for (DistributedLock member : members) {
            try {
                any |= member.forceUnlock();
            } catch (RuntimeException e) {
                failures.add(member.getName(), e);
            }
        }
        RuntimeException failed = failures.toException(members.size());
        if (failed != null) {
            throw failed;
        }
        return any;
    }

    @Override
    public void extendLease(Duration lease) {
        Objects.requireNonNull(lease, "lease");
        Failures failures = new Failures(name, "extendLease");
        for (DistributedLock member : owned()) {
            try {
                member.extendLease(lease);
            } catch (RuntimeException e) {
                failures.add(member.getName(), e);
            }
        }
        RuntimeException failed = failures.toException(members.size());
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(name + ": distributed conditions are not supported");
    }

    // --- async ------------------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsyncFor(leaseTime, unit, ownerNow().id());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        return lockAsyncFor(leaseTime, unit, ownerId);
    }

    private CompletableFuture<Void> lockAsyncFor(long leaseTime, TimeUnit unit, long ownerId) {
        long leaseMs = leaseMillis(leaseTime, unit);
        checkLease(leaseMs);
        return startAsync(WAIT_FOREVER, leaseMs, ownerId, held -> (Void) null);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsyncFor(waitTime, leaseTime, unit, ownerNow().id());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        return tryLockAsyncFor(waitTime, leaseTime, unit, ownerId);
    }

    private CompletableFuture<Boolean> tryLockAsyncFor(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long leaseMs = leaseMillis(leaseTime, unit);
        checkLease(leaseMs);
        Objects.requireNonNull(unit, "unit");
        long waitMs = waitTime == WAIT_FOREVER || unit.toMillis(waitTime) > MAX_LEASE.toMillis() ? WAIT_FOREVER
                : unit.toMillis(waitTime);
        if (waitMs < 0 && waitTime != WAIT_FOREVER) {
            throw new IllegalArgumentException(name + ": waitTime must be >= 0 or WAIT_FOREVER, was " + waitTime);
        }
        return startAsync(waitMs, leaseMs, ownerId, Function.identity());
    }

    /**
     * An async acquisition: of the group in one script, or member after member ({@link MultiLockAsync}, whose steps
     * run on the threads that bring Redis's answers). Either way the caller's future is the one {@link Callers}
     * hands over, with {@code map} of the outcome applied before (so a cancel of the caller's future always reaches
     * the acquisition): it completes on the client's executor, never on a Redis I/O thread, and cancelling it gives
     * the acquisition up ({@link MultiLockAsync#abandon}: members taken, the last one included, are given back).
     */
    private <T> CompletableFuture<T> startAsync(long waitMs, long leaseMs, long ownerId, Function<Boolean, T> map) {
        if (group != null) {
            return group.acquireAsync(PlainLockGroup.waitNanos(waitMs), leaseMs, ownerId, map);
        }
        MultiLockAsync acquisition;
        try {
            acquisition = new MultiLockAsync(name, members, LockOwner.of(ownerId), waitMs, leaseMs, acquisitions);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        // each member's give-back is also recorded as its own cleanup (RedisLocks#releaseAsCleanup); the whole
        // give-back is tracked so that close waits for it
        return Callers.toCaller(executor, acquisition::abandon, acquisitions::track,
                acquisition.start().thenApply(map), Errors::unwrap);
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsyncFor(ownerNow());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        return unlockAsyncFor(LockOwner.of(ownerId));
    }

    private CompletableFuture<Void> unlockAsyncFor(LockOwner owner) {
        return overAll("unlock", reversed(members), member -> member.as(owner).unlockAsync())
                .thenApply(any -> null);
    }

    @Override
    public CompletableFuture<Void> extendLeaseAsync(Duration lease) {
        Objects.requireNonNull(lease, "lease");
        LockOwner owner = ownerNow();
        return overAll("extendLease", members, member -> member.as(owner).extendLeaseAsync(lease))
                .thenApply(any -> null);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        return overAll("forceUnlock", members, DistributedLock::forceUnlockAsync);
    }

    /**
     * Runs {@code operation} on every member at once and waits for all of them.
     *
     * @return true when any member's result was {@code Boolean.TRUE}; fails with the one exception of {@link Failures}
     */
    private CompletableFuture<Boolean> overAll(String operation, List<DistributedLock> over,
                                               Function<DistributedLock, CompletableFuture<?>> call) {
        Failures failures = new Failures(name, operation);
        AtomicBoolean any = new AtomicBoolean();
        CompletableFuture<?>[] each = over.stream().map(member -> Errors.<Object>call(() -> {
            @SuppressWarnings("unchecked")
            CompletableFuture<Object> f = (CompletableFuture<Object>) call.apply(member);
            return f;
        }).handle((value, error) -> {
            if (error != null) {
                failures.add(member.getName(), Errors.unwrap(error));
            } else if (Boolean.TRUE.equals(value)) {
                any.set(true);
            }
            return null;
        })).toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(each).thenCompose(v -> {
            RuntimeException failed = failures.toException(members.size());
            return failed != null ? CompletableFuture.failedFuture(failed)
                    : CompletableFuture.completedFuture(any.get());
        });
    }
}
