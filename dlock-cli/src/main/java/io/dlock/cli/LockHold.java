package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockInfo;
import io.dlock.LockOwner;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The lock as one {@code dlock run} holds it: through the async API of a view whose owner is this process's pid
 * ({@code lock.as(LockOwner.of(pid))}), so that any thread (main, shutdown hook, lease-lost listener) can act on the
 * hold. The hold shows as {@code <client id>:<pid>}.
 */
final class LockHold implements RunHold {
    private static final Duration ABANDON_CLEAN_UP = Duration.ofSeconds(2);

    private final LockClient client;
    private final DistributedLock lock;
    private final String lockName;
    private final long ownerId = ProcessHandle.current().pid();
    /** {@link #lock} acting for {@link #ownerId} on every thread. */
    private final DistributedLock owned;

    /** @param lockName the name as given on the command line (a read-write lock's sides have names of their own) */
    LockHold(LockClient client, DistributedLock lock, String lockName) {
        this.client = client;
        this.lock = lock;
        this.lockName = lockName;
        this.owned = lock.as(LockOwner.of(ownerId));
    }

    @Override
    public HoldWords words() {
        return HoldWords.lock(lockName);
    }

    /** {@code <client id>:<owner id>}, as {@code dlock status} shows the hold. */
    @Override
    public String acquiredAs() {
        return "as " + client.getId() + ":" + ownerId;
    }

    @Override
    public CompletableFuture<Boolean> acquire(Duration wait, Duration lease) {
        long waitMs = wait == null ? DistributedLock.WAIT_FOREVER : wait.toMillis();
        long leaseMs = lease == null ? DistributedLock.LEASE_WATCHDOG : lease.toMillis();
        return owned.tryLockAsync(waitMs, leaseMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public long validForNanos() {
        return owned.leaseValidFor().toNanos();
    }

    @Override
    public boolean isAbout(LeaseLostEvent event) {
        return event.ownerId() == ownerId
                && (event.lockName().equals(lock.getName()) || event.lockName().equals(lockName));
    }

    @Override
    public LeaseLostEvent expired() {
        return new LeaseLostEvent(lockName, ownerId, LeaseLostEvent.Reason.EXPIRED, Instant.now());
    }

    @Override
    public String holderPhrase() {
        try {
            return LockInfoFormat.holderPhrase(client.inspect(lockName));
        } catch (RuntimeException e) {
            return "holder unknown (" + e.getMessage() + ")";
        }
    }

    /**
     * After a cancelled wait: the library undoes it asynchronously (a late acquisition released, a fair-queue entry
     * removed). Gives that a moment, bounded.
     *
     * @return whether the hold is there all the same (then it is ours to release)
     */
    @Override
    public boolean heldAfterAbandonedWait() {
        long deadline = System.nanoTime() + ABANDON_CLEAN_UP.toNanos();
        while (System.nanoTime() < deadline) {
            LockInfo info;
            try {
                info = client.inspect(lockName);
            } catch (RuntimeException e) {
                return false;
            }
            boolean holding = info.holders().stream()
                    .anyMatch(h -> h.clientId().equals(client.getId()) && h.threadId() == ownerId);
            if (holding) {
                return true;
            }
            boolean queued = info.waiters().stream()
                    .anyMatch(w -> w.clientId().equals(client.getId()) && w.threadId() == ownerId);
            if (!queued) {
                return false;
            }
            sleep(20);
        }
        return false;
    }

    /** Releases the hold through {@link HoldRelease}: an unlock refused as not held means the lease was lost. */
    @Override
    public void release(LeaseLostEvent lost, RunMessages messages) {
        HoldRelease.await(owned.unlockAsync().thenApply(unlocked -> true),
                cause -> cause instanceof IllegalMonitorStateException ? HoldRelease.Failure.NOT_OURS
                        : HoldRelease.Failure.FAILED, lost, messages);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
