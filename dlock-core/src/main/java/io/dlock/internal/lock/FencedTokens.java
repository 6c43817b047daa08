package io.dlock.internal.lock;

import io.dlock.FencedLock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The token methods of {@link FencedLock}, written once for the fenced lock object (owner: the calling thread) and its
 * views (owner: a fixed {@code LockOwner}): acquire as the lock's owner, then read the token of that owner's new hold
 * from {@link #fencedLock()}'s hold record.
 */
interface FencedTokens extends FencedLock {
    /** @return the fenced lock whose holds carry the tokens */
    FencedRedisLock fencedLock();

    /** @return the owner the methods act for, read once per call */
    long tokenOwner();

    @Override
    default long lockAndGetToken() {
        lock();
        return fencedLock().tokenOfNewHold(tokenOwner());
    }

    @Override
    default long lockAndGetToken(long leaseTime, TimeUnit unit) {
        lock(leaseTime, unit);
        return fencedLock().tokenOfNewHold(tokenOwner());
    }

    @Override
    default Long tryLockAndGetToken() {
        return tryLock() ? fencedLock().tokenOfNewHold(tokenOwner()) : null;
    }

    @Override
    default Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit) ? fencedLock().tokenOfNewHold(tokenOwner()) : null;
    }

    @Override
    default Long getToken() {
        return fencedLock().tokenOf(tokenOwner());
    }

    @Override
    default CompletableFuture<Long> lockAndGetTokenAsync() {
        return lockAndGetTokenAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    default CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit) {
        long owner = tokenOwner();
        return fencedLock().tokenOnceAcquired(fencedLock().lockAsync(leaseTime, unit, owner), owner);
    }

    @Override
    default CompletableFuture<Long> tryLockAndGetTokenAsync() {
        return tryLockAndGetTokenAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    default CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit) {
        long owner = tokenOwner();
        return fencedLock().tokenOnceAcquired(fencedLock().tryLockAsync(waitTime, leaseTime, unit, owner), owner);
    }
}
