package io.dlock.internal.lock;

import io.dlock.FencedLock;
import io.dlock.LockException;
import io.dlock.LockOwner;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The token methods of {@link FencedLock}, written once for the fenced lock object (owner: the calling thread) and its
 * views (owner: a fixed {@code LockOwner}): acquire as the owner, then read the token of that owner's new hold from
 * this client's hold record ({@link Hold#fencingToken()}, set by {@link FencedProtocol}).
 */
interface FencedTokens extends FencedLock {
    /** @return the lock (its protocol a {@link FencedProtocol}) whose holds carry the tokens */
    RedisLock fencedCore();

    /** @return the owner the methods act for, read once per call */
    long tokenOwner();

    @Override
    default long lockAndGetToken() {
        lock();
        return tokenOfNewHold(tokenOwner());
    }

    @Override
    default long lockAndGetToken(long leaseTime, TimeUnit unit) {
        lock(leaseTime, unit);
        return tokenOfNewHold(tokenOwner());
    }

    @Override
    default Long tryLockAndGetToken() {
        return tryLock() ? tokenOfNewHold(tokenOwner()) : null;
    }

    @Override
    default Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(waitTime, leaseTime, unit) ? tokenOfNewHold(tokenOwner()) : null;
    }

    /**
     * The token of the owner's hold while that hold is known valid ({@link #leaseValidFor()} positive), so that a
     * holder whose lease ran out (or was found lost) gets null rather than a token it may no longer use.
     */
    @Override
    default Long getToken() {
        RedisLock core = fencedCore();
        Hold hold = core.hold(tokenOwner());
        return hold == null || hold.validForNanos(core.services.clock().nanoTime()) <= 0 ? null
                : hold.fencingToken();
    }

    @Override
    default long requireToken() {
        Long token = getToken();
        if (token == null) {
            throw new IllegalMonitorStateException("fenced lock '" + getName() + "' is not held by owner "
                    + tokenOwner() + " with a lease known valid (never acquired, released, or its lease ran out or "
                    + "was lost), so it has no token to write with");
        }
        return token;
    }

    @Override
    default CompletableFuture<Long> lockAndGetTokenAsync() {
        return lockAndGetTokenAsync(LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    default CompletableFuture<Long> lockAndGetTokenAsync(long leaseTime, TimeUnit unit) {
        long owner = tokenOwner();
        return tokenOnceAcquired(as(LockOwner.of(owner)).lockAsync(leaseTime, unit), owner);
    }

    @Override
    default CompletableFuture<Long> tryLockAndGetTokenAsync() {
        return tryLockAndGetTokenAsync(0, LEASE_WATCHDOG, TimeUnit.MILLISECONDS);
    }

    @Override
    default CompletableFuture<Long> tryLockAndGetTokenAsync(long waitTime, long leaseTime, TimeUnit unit) {
        long owner = tokenOwner();
        return tokenOnceAcquired(as(LockOwner.of(owner)).tryLockAsync(waitTime, leaseTime, unit), owner);
    }

    /**
     * The token of {@code ownerId}'s new hold once {@code acquisition} (of {@code lockAsync}: {@code Void}, or of
     * {@code tryLockAsync}: whether acquired) acquired it; null when it did not. Cancelling the result cancels the
     * acquisition (which abandons its wait); a hold acquired while the result was being cancelled is released again,
     * as a cancelled {@code lockAsync} does.
     */
    private CompletableFuture<Long> tokenOnceAcquired(CompletableFuture<?> acquisition, long ownerId) {
        CompletableFuture<Long> token = new CompletableFuture<>();
        acquisition.whenComplete((acquired, error) -> {
            if (error != null) {
                token.completeExceptionally(Errors.unwrap(error));
            } else if (Boolean.FALSE.equals(acquired)) {
                token.complete(null);
            } else {
                try {
                    if (!token.complete(tokenOfNewHold(ownerId))) {
                        as(LockOwner.of(ownerId)).unlockAsync(); // cancelled meanwhile: nobody will release it
                    }
                } catch (RuntimeException e) {
                    token.completeExceptionally(e);
                }
            }
        });
        token.whenComplete((value, error) -> {
            if (token.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        return token;
    }

    /**
     * The token of the hold {@code ownerId} just acquired (even if its lease is already shorter than the safety
     * margin); fails when that hold is already gone again.
     */
    private long tokenOfNewHold(long ownerId) {
        Hold hold = fencedCore().hold(ownerId);
        Long token = hold == null ? null : hold.fencingToken();
        if (token == null) {
            throw new LockException(getName(), "fenced lock '" + getName() + "': the hold ended right after it was "
                    + "acquired (a lease shorter than a round trip, or a forceUnlock from this client), so it has no "
                    + "token to give", null);
        }
        return token;
    }
}
