package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockOwner;
import io.dlock.internal.Errors;
import io.dlock.internal.acquire.AcquireLoop;
import io.dlock.internal.acquire.Args;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.lease.Hold;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The public lock API for one owner, over the one lock implementation ({@link RedisLock}): argument checks, sync
 * waits over the async internals, and the hand-off of completions to the client's executor. Which owner the methods
 * act for is the subclass's choice ({@link #owner()}): the calling thread for the lock objects a client hands out, a
 * fixed one for the views of {@link #as} ({@link OwnerView}). The deprecated forms with an explicit
 * {@code ownerId}/{@code threadId} act for that id whatever {@link #owner()} is; each is a thin delegate to the
 * private {@code ...For(ownerId)} method that the other methods use, so removing them touches nothing else.
 *
 * <p>Sync methods are thin waits on the async internals; no lock is held while waiting.
 */
public abstract class LockApi implements DistributedLock {

    /** @return the lock this API drives */
    abstract RedisLock core();

    /** @return the owner id that the methods without an explicit one act for; read once per call */
    abstract long owner();

    private LockServices services() {
        return core().services;
    }

    private String name() {
        return core().name;
    }

    private void acquireUninterruptibly(long leaseMs) {
        AcquireLoop loop = core().startAcquire(WAIT_FOREVER, leaseMs, owner());
        services().acquisitions().waits().awaitUninterruptibly(loop.result());
    }

    private boolean acquireInterruptibly(long waitNanos, long leaseMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("lock '" + name() + "': interrupted before acquiring");
        }
        AcquireLoop loop = core().startAcquire(waitNanos, leaseMs, owner());
        return services().acquisitions().waits().awaitOrAbandon(loop.result(), loop::abandon);
    }

    private <T> CompletableFuture<T> toCaller(AcquireLoop loop, long ownerId, CompletableFuture<T> internal) {
        return Callers.toCaller(services().acquisitions().executor(), loop == null ? null : loop::abandon,
                cleanup -> services().holds().trackCleanup(core().holdId(ownerId), cleanup), internal, Errors::unwrap);
    }

    private <T> CompletableFuture<T> toCaller(CompletableFuture<T> internal) {
        return toCaller(null, 0, internal);
    }

    private static <T> CompletableFuture<T> failed(RuntimeException e) {
        return CompletableFuture.failedFuture(e);
    }

    // ---- DistributedLock ----

    @Override
    public String getName() {
        return name();
    }

    @Override
    public DistributedLock as(LockOwner owner) {
        return new OwnerView(core(), Objects.requireNonNull(owner, "owner").id());
    }

    @Override
    public void lock() {
        acquireUninterruptibly(LEASE_WATCHDOG);
    }

    @Override
    public void lock(long leaseTime, TimeUnit unit) {
        acquireUninterruptibly(Args.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, LEASE_WATCHDOG);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, Args.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public boolean tryLock() {
        AcquireLoop loop = core().startAcquire(0, LEASE_WATCHDOG, owner());
        return services().acquisitions().waits().awaitSingleAttempt(loop.result());
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquireInterruptibly(Args.waitNanos(name(), waitTime, unit), LEASE_WATCHDOG);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long waitNanos = Args.waitNanos(name(), waitTime, unit);
        return acquireInterruptibly(waitNanos, Args.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public void unlock() {
        services().checkOpen(name());
        services().acquisitions().waits().awaitUninterruptibly(core().release(owner()));
    }

    @Override
    public boolean forceUnlock() {
        services().checkOpen(name());
        return services().acquisitions().waits().awaitUninterruptibly(core().forceRelease());
    }

    @Override
    public boolean isLocked() {
        services().checkOpen(name());
        return services().acquisitions().waits().awaitUninterruptibly(core().locked());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldBy(owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public boolean isHeldByThread(long threadId) {
        return isHeldBy(threadId);
    }

    private boolean isHeldBy(long ownerId) {
        services().checkOpen(name());
        return services().acquisitions().waits().awaitUninterruptibly(core().holdCount(ownerId)) > 0;
    }

    @Override
    public int getHoldCount() {
        services().checkOpen(name());
        return services().acquisitions().waits().awaitUninterruptibly(core().holdCount(owner()));
    }

    @Override
    public long remainTimeToLive() {
        services().checkOpen(name());
        return services().acquisitions().waits().awaitUninterruptibly(core().ttl());
    }

    @Override
    public Duration leaseValidFor() {
        return validFor(owner());
    }

    private Duration validFor(long ownerId) {
        Hold hold = core().hold(ownerId);
        if (hold == null) {
            return Duration.ZERO;
        }
        long nanos = hold.validForNanos(services().clock().nanoTime());
        return nanos > 0 ? Duration.ofNanos(nanos) : Duration.ZERO;
    }

    @Override
    public void extendLease(Duration lease) {
        services().acquisitions().waits().awaitUninterruptibly(LeaseExtension.extend(core(), owner(), lease));
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("lock '" + name() + "': distributed conditions are not supported");
    }

    // ---- async ----

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsyncFor(LEASE_WATCHDOG, TimeUnit.MILLISECONDS, owner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsyncFor(leaseTime, unit, owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        return lockAsyncFor(leaseTime, unit, ownerId);
    }

    private CompletableFuture<Void> lockAsyncFor(long leaseTime, TimeUnit unit, long ownerId) {
        long leaseMs = Args.leaseMillis(name(), leaseTime, unit);
        try {
            AcquireLoop loop = core().startAcquire(WAIT_FOREVER, leaseMs, ownerId);
            return toCaller(loop, ownerId, loop.result().thenApply(acquired -> (Void) null));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsyncFor(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS, owner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsyncFor(waitTime, leaseTime, unit, owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        return tryLockAsyncFor(waitTime, leaseTime, unit, ownerId);
    }

    private CompletableFuture<Boolean> tryLockAsyncFor(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long waitNanos = Args.waitNanos(name(), waitTime, unit);
        long leaseMs = Args.leaseMillis(name(), leaseTime, unit);
        try {
            AcquireLoop loop = core().startAcquire(waitNanos, leaseMs, ownerId);
            return toCaller(loop, ownerId, loop.result());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsyncFor(owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Void> unlockAsync(long ownerId) {
        return unlockAsyncFor(ownerId);
    }

    private CompletableFuture<Void> unlockAsyncFor(long ownerId) {
        try {
            services().checkOpen(name());
            return toCaller(core().release(ownerId));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> extendLeaseAsync(Duration lease) {
        CompletableFuture<Void> extended = LeaseExtension.extend(core(), owner(), lease);
        return toCaller(extended);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlockAsync() {
        try {
            services().checkOpen(name());
            return toCaller(core().forceRelease());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> isLockedAsync() {
        try {
            services().checkOpen(name());
            return toCaller(core().locked());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> isHeldByCurrentThreadAsync() {
        return isHeldByAsync(owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Boolean> isHeldByThreadAsync(long threadId) {
        return isHeldByAsync(threadId);
    }

    private CompletableFuture<Boolean> isHeldByAsync(long ownerId) {
        CompletableFuture<Boolean> held = new CompletableFuture<>();
        getHoldCountAsyncFor(ownerId).whenComplete((count, error) -> {
            if (error != null) {
                held.completeExceptionally(error);
            } else {
                held.complete(count > 0);
            }
        });
        return held;
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync() {
        return getHoldCountAsyncFor(owner());
    }

    @Override
    @Deprecated(since = "0.1", forRemoval = true)
    @SuppressWarnings("removal") // implements the deprecated form
    public CompletableFuture<Integer> getHoldCountAsync(long ownerId) {
        return getHoldCountAsyncFor(ownerId);
    }

    private CompletableFuture<Integer> getHoldCountAsyncFor(long ownerId) {
        try {
            services().checkOpen(name());
            return toCaller(core().holdCount(ownerId));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Long> remainTimeToLiveAsync() {
        try {
            services().checkOpen(name());
            return toCaller(core().ttl());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }
}
