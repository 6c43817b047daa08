package io.dlock.internal.lock;

import io.dlock.ReplicasNotSyncedException;
import io.dlock.internal.Errors;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * {@link io.dlock.LockClientConfig#syncReplicas() syncReplicas}: after an acquisition, {@code WAIT} until that many
 * replicas have the write; when fewer confirm within the timeout (or {@code WAIT} fails), the hold is given back and
 * the attempt fails with a {@link ReplicasNotSyncedException} (an "unavailable" failure: acquisitions without a wait
 * limit retry it, the others report it).
 *
 * <p>Only a first acquisition is confirmed: a re-entry changes no ownership. Releases and watchdog renewals are not
 * confirmed; a leader election's renewals are ({@link #confirmRenewal}). Immutable and thread-safe.
 */
public final class ReplicaSync {

    /** Sends {@code WAIT} over the connection that carried the write of {@code key}. */
    @FunctionalInterface
    public interface WaitCommand {
        /** @return how many replicas acknowledged */
        CompletableFuture<Long> waitFor(String key, int replicas, long timeoutMillis);
    }

    private static final ReplicaSync OFF = new ReplicaSync(0, 0, (key, replicas, timeout) -> {
        throw new IllegalStateException("replica sync is off");
    });

    private final int replicas;
    private final long timeoutMillis;
    private final WaitCommand wait;

    /**
     * @param replicas      replicas that must confirm; 0 = off
     * @param timeoutMillis how long {@code WAIT} may block (it blocks the connection's other commands meanwhile)
     */
    public ReplicaSync(int replicas, long timeoutMillis, WaitCommand wait) {
        this.replicas = replicas;
        this.timeoutMillis = timeoutMillis;
        this.wait = wait;
    }

    /** @return no confirmation */
    public static ReplicaSync off() {
        return OFF;
    }

    boolean enabled() {
        return replicas > 0;
    }

    /**
     * Confirms an acquisition of {@code lockName} just granted on {@code key}.
     *
     * @param giveBack releases the hold again; must never fail (it cleans up on its own)
     * @return completes with null (the attempt's "acquired") when confirmed, else fails once the hold was given back
     */
    CompletableFuture<Long> confirm(String lockName, String key, Supplier<CompletableFuture<Void>> giveBack) {
        return await(lockName, key, "acquired").handle((ok, error) -> error == null
                ? CompletableFuture.<Long>completedFuture(null)
                : giveBack.get().<Long>thenApply(ignored -> {
                    throw (RuntimeException) error;
                })).thenCompose(f -> f);
    }

    /**
     * Confirms a leader election's renewal of {@code lockName} just extended on {@code key} (docs/protocol.md §14.2):
     * a renewal counts as confirmed only once the replicas have it, so that a failover to one of them keeps the
     * leader's key for the lease the leader counts on. Nothing is given back: an unconfirmed renewal is a failed one
     * (the leader steps down at its deadline unless a later renewal is confirmed).
     *
     * @return completes at once when replica sync is off; else when confirmed, or fails with the
     *         {@link ReplicasNotSyncedException} (or the mapped failure of {@code WAIT})
     */
    CompletableFuture<Void> confirmRenewal(String lockName, String key) {
        if (!enabled()) {
            return CompletableFuture.completedFuture(null);
        }
        return await(lockName, key, "renewed");
    }

    /** {@code WAIT}s for the replicas; fails with the API's exception when fewer confirmed or it failed. */
    private CompletableFuture<Void> await(String lockName, String key, String done) {
        CompletableFuture<Long> acked = Errors.call(() -> wait.waitFor(key, replicas, timeoutMillis));
        return acked.handle((count, error) -> {
            if (error == null && count != null && count >= replicas) {
                return null;
            }
            throw error != null
                    ? Errors.toApi(error, lockName, "confirm the write on " + replicas + " replica(s)")
                    : new ReplicasNotSyncedException(lockName, "lock '" + lockName + "': " + done + ", but only "
                    + count + " of " + replicas + " replica(s) confirmed it within " + timeoutMillis
                    + " ms (syncReplicas)" + ("acquired".equals(done) ? "; given back" : "; not counted as renewed"));
        });
    }
}
