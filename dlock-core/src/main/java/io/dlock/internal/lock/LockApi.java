package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockOwner;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The public lock API for one owner, over the one lock implementation ({@link RedisLock}): argument checks, sync
 * waits over the async internals, and the hand-off of completions to the client's executor. Which owner the methods
 * act for is the subclass's choice ({@link #owner()}): the calling thread for the lock objects a client hands out, a
 * fixed one for the views of {@link #as} ({@link OwnerView}). The forms with an explicit
 * {@code ownerId}/{@code threadId} act for that id whatever {@link #owner()} is.
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
        services().waits.awaitUninterruptibly(loop.result());
    }

    private boolean acquireInterruptibly(long waitNanos, long leaseMs) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("lock '" + name() + "': interrupted before acquiring");
        }
        AcquireLoop loop = core().startAcquire(waitNanos, leaseMs, owner());
        return awaitOrAbandon(services().waits, loop.result(), loop::abandon);
    }

    /**
     * Waits for an acquisition's result; on interrupt abandons the acquisition, waits until nothing of it is left in
     * Redis, and throws {@link InterruptedException} (the flag cleared).
     */
    static boolean awaitOrAbandon(SyncWaits waits, CompletableFuture<Boolean> result,
                                  Supplier<CompletableFuture<?>> abandon) throws InterruptedException {
        try {
            return waits.await(result);
        } catch (InterruptedException e) {
            waits.awaitUninterruptibly(abandon.get());
            Thread.interrupted();
            throw e;
        }
    }

    private <T> CompletableFuture<T> toCaller(AcquireLoop loop, long ownerId, CompletableFuture<T> internal) {
        return toCaller(services().executor, loop == null ? null : loop::abandon,
                cleanup -> services().holds.trackCleanup(core().holdId(ownerId), cleanup), internal);
    }

    /**
     * The caller's future completes on the client's executor. Cancelling it abandons the acquisition; the owner's next
     * acquisition of the lock waits for what the abandoned one leaves to clean up ({@code trackCleanup}, given the
     * cleanup; {@link io.dlock.internal.lease.HoldTable#trackCleanup}).
     *
     * @param abandon abandons the acquisition, or null for another operation
     */
    static <T> CompletableFuture<T> toCaller(Executor executor, Supplier<CompletableFuture<?>> abandon,
                                             Consumer<CompletableFuture<?>> trackCleanup,
                                             CompletableFuture<T> internal) {
        CompletableFuture<T> exposed = new CompletableFuture<>();
        internal.whenCompleteAsync((value, error) -> {
            if (error != null) {
                exposed.completeExceptionally(Errors.unwrap(error));
            } else {
                exposed.complete(value);
            }
        }, executor);
        if (abandon != null) {
            exposed.whenComplete((value, error) -> {
                if (exposed.isCancelled()) {
                    trackCleanup.accept(abandon.get());
                }
            });
        }
        return exposed;
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
        acquireUninterruptibly(TimeArgs.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, LEASE_WATCHDOG);
    }

    @Override
    public void lockInterruptibly(long leaseTime, TimeUnit unit) throws InterruptedException {
        acquireInterruptibly(WAIT_FOREVER, TimeArgs.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public boolean tryLock() {
        AcquireLoop loop = core().startAcquire(0, LEASE_WATCHDOG, owner());
        return services().waits.awaitUninterruptibly(loop.result());
    }

    @Override
    public boolean tryLock(long waitTime, TimeUnit unit) throws InterruptedException {
        return acquireInterruptibly(TimeArgs.waitNanos(name(), waitTime, unit), LEASE_WATCHDOG);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        long waitNanos = TimeArgs.waitNanos(name(), waitTime, unit);
        return acquireInterruptibly(waitNanos, TimeArgs.leaseMillis(name(), leaseTime, unit));
    }

    @Override
    public void unlock() {
        services().checkOpen(name());
        services().waits.awaitUninterruptibly(core().release(owner()));
    }

    @Override
    public boolean forceUnlock() {
        services().checkOpen(name());
        return services().waits.awaitUninterruptibly(core().forceRelease());
    }

    @Override
    public boolean isLocked() {
        services().checkOpen(name());
        return services().waits.awaitUninterruptibly(core().locked());
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return isHeldByThread(owner());
    }

    @Override
    public boolean isHeldByThread(long threadId) {
        services().checkOpen(name());
        return services().waits.awaitUninterruptibly(core().holdCount(threadId)) > 0;
    }

    @Override
    public int getHoldCount() {
        services().checkOpen(name());
        return services().waits.awaitUninterruptibly(core().holdCount(owner()));
    }

    @Override
    public long remainTimeToLive() {
        services().checkOpen(name());
        return services().waits.awaitUninterruptibly(core().ttl());
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
        long nanos = hold.validForNanos(services().renewer.nanoTime());
        return nanos > 0 ? Duration.ofNanos(nanos) : Duration.ZERO;
    }

    @Override
    public void extendLease(Duration lease) {
        services().waits.awaitUninterruptibly(LeaseExtension.extend(core(), owner(), lease));
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("lock '" + name() + "': distributed conditions are not supported");
    }

    // ---- async ----

    @Override
    public CompletableFuture<Void> lockAsync() {
        return lockAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS, owner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit) {
        return lockAsync(leaseTime, unit, owner());
    }

    @Override
    public CompletableFuture<Void> lockAsync(long leaseTime, TimeUnit unit, long ownerId) {
        long leaseMs = TimeArgs.leaseMillis(name(), leaseTime, unit);
        try {
            AcquireLoop loop = core().startAcquire(WAIT_FOREVER, leaseMs, ownerId);
            return toCaller(loop, ownerId, loop.result().thenApply(acquired -> (Void) null));
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync() {
        return tryLockAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS, owner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return tryLockAsync(waitTime, leaseTime, unit, owner());
    }

    @Override
    public CompletableFuture<Boolean> tryLockAsync(long waitTime, long leaseTime, TimeUnit unit, long ownerId) {
        long waitNanos = TimeArgs.waitNanos(name(), waitTime, unit);
        long leaseMs = TimeArgs.leaseMillis(name(), leaseTime, unit);
        try {
            AcquireLoop loop = core().startAcquire(waitNanos, leaseMs, ownerId);
            return toCaller(loop, ownerId, loop.result());
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    @Override
    public CompletableFuture<Void> unlockAsync() {
        return unlockAsync(owner());
    }

    @Override
    public CompletableFuture<Void> unlockAsync(long ownerId) {
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
        return isHeldByThreadAsync(owner());
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync() {
        return getHoldCountAsync(owner());
    }

    @Override
    public CompletableFuture<Integer> getHoldCountAsync(long ownerId) {
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
