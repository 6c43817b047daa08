package io.dlock.internal.lock;

import io.dlock.FencedLock;
import io.dlock.LockOwner;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link FencedRedisLock} acting for one fixed owner ({@link OwnerView}); its tokens are that owner's. */
final class FencedOwnerView extends OwnerView implements FencedLock {
    private final FencedRedisLock fenced;

    FencedOwnerView(FencedRedisLock lock, long ownerId) {
        super(lock, ownerId);
        this.fenced = lock;
    }

    @Override
    public FencedLock as(LockOwner owner) {
        return (FencedLock) super.as(owner);
    }

    @Override
    public long lockAndGetToken() {
        lock();
        return fenced.tokenOfNewHold(owner());
    }

    @Override
    public long lockAndGetToken(long leaseTime, TimeUnit unit) {
        lock(leaseTime, unit);
        return fenced.tokenOfNewHold(owner());
    }

    @Override
    public Long tryLockAndGetToken() {
        return tryLock() ? fenced.tokenOfNewHold(owner()) : null;
    }

    @Override
    public Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit) ? fenced.tokenOfNewHold(owner()) : null;
    }

    @Override
    public Long getToken() {
        return fenced.tokenOf(owner());
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync() {
        return lockAndGetTokenAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit) {
        return fenced.tokenOnceAcquired(fenced.lockAsync(leaseTime, unit, owner()), owner());
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync() {
        return tryLockAndGetTokenAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit) {
        return fenced.tokenOnceAcquired(fenced.tryLockAsync(waitTime, leaseTime, unit, owner()), owner());
    }
}
