package io.dlock;

import java.util.concurrent.TimeUnit;

/**
 * A {@link DistributedLock} whose every acquisition (not re-entry) takes a fencing token: a {@code long} that strictly
 * increases for the lock name across all clients and client restarts. Pass the token to the protected resource and
 * have it reject writes carrying a token lower than one it has seen.
 */
public interface FencedLock extends DistributedLock {

    /** As {@link #lock()}, returning the hold's token. */
    long lockAndGetToken();

    /** As {@link #lock(long, TimeUnit)}, returning the hold's token; the lease is honoured. */
    long lockAndGetToken(long leaseTime, TimeUnit unit);

    /** As {@link #tryLock()}; the token, or null when not acquired. */
    Long tryLockAndGetToken();

    /** As {@link #tryLock(long, long, TimeUnit)}; the token, or null when not acquired. */
    Long tryLockAndGetToken(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /** @return the current thread's hold's token, or null when it holds none */
    Long getToken();
}
