package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LeaseLostEvent;
import io.dlock.LockClient;
import io.dlock.LockInfo;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;

/**
 * The lock as one {@code dlock run} holds it: through the async API with an explicit owner id, this process's pid,
 * so that any thread (main, shutdown hook, lease-lost listener) can act on the hold. The hold shows as
 * {@code <client id>:<pid>}.
 */
final class RunHold {
    private static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration ABANDON_CLEAN_UP = Duration.ofSeconds(2);

    private final LockClient client;
    private final DistributedLock lock;
    private final String lockName;
    private final long ownerId = ProcessHandle.current().pid();

    /** @param lockName the name as given on the command line (a read-write lock's sides have names of their own) */
    RunHold(LockClient client, DistributedLock lock, String lockName) {
        this.client = client;
        this.lock = lock;
        this.lockName = lockName;
    }

    /** {@code <client id>:<owner id>}, as {@code dlock status} shows the hold. */
    String owner() {
        return client.getId() + ":" + ownerId;
    }

    /**
     * @param wait  null to wait for ever
     * @param lease null for the watchdog
     */
    CompletableFuture<Boolean> tryLock(Duration wait, Duration lease) {
        long waitMs = wait == null ? DistributedLock.WAIT_FOREVER : wait.toMillis();
        long leaseMs = lease == null ? DistributedLock.LEASE_WATCHDOG : lease.toMillis();
        return lock.tryLockAsync(waitMs, leaseMs, TimeUnit.MILLISECONDS, ownerId);
    }

    /** ns the hold is known valid for, as the library counts it; 0 when not held. */
    long validForNanos() {
        return LeaseGuard.validForNanos(lock, ownerId);
    }

    /** A lease-loss notification (the client's listener hears every lock of the client) about this hold. */
    boolean isAbout(LeaseLostEvent event) {
        return event.ownerId() == ownerId
                && (event.lockName().equals(lock.getName()) || event.lockName().equals(lockName));
    }

    /** A loss by expiry, as dlock itself finds it (the library has not reported it, or not yet). */
    LeaseLostEvent expired() {
        return new LeaseLostEvent(lockName, ownerId, LeaseLostEvent.Reason.EXPIRED, Instant.now());
    }

    /** Watches the hold's deadline; see {@link LeaseGuard}. */
    LeaseGuard guard(StopPlan plan, OrphanGuard orphans, LongConsumer onStopTime) {
        return new LeaseGuard(lock, ownerId, plan, orphans, onStopTime);
    }

    /** Who holds the lock, for the busy message; never throws. */
    String holderPhrase() {
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
    boolean heldAfterAbandonedWait() {
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

    /**
     * Releases the hold, waiting at most 5 s; a failure is a warning (the hold then expires with its lease).
     *
     * @param lost the loss already reported, if any: then a hold found gone needs no warning
     */
    void release(LeaseLostEvent lost, RunMessages messages) {
        try {
            lock.unlockAsync(ownerId).get(RELEASE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            messages.released();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalMonitorStateException) {
                if (lost == null) {
                    messages.notHeldAtRelease();
                }
            } else {
                messages.releaseFailed(cause.getMessage());
            }
        } catch (TimeoutException e) {
            messages.releaseTimedOut(RELEASE_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            messages.releaseInterrupted();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
