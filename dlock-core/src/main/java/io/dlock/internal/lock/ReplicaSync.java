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
 * <p>Only a first acquisition is confirmed: a re-entry changes no ownership. Releases and renewals are not
 * confirmed. Immutable and thread-safe.
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
        CompletableFuture<Long> acked = Errors.call(() -> wait.waitFor(key, replicas, timeoutMillis));
        return acked.handle((count, error) -> {
            if (error == null && count != null && count >= replicas) {
                return CompletableFuture.<Long>completedFuture(null);
            }
            RuntimeException failure = error != null
                    ? Errors.toApi(error, lockName, "confirm the acquisition on " + replicas + " replica(s)")
                    : new ReplicasNotSyncedException(lockName, "lock '" + lockName + "': acquired, but only " + count + " of "
                    + replicas + " replica(s) confirmed it within " + timeoutMillis + " ms (syncReplicas); given back");
            return giveBack.get().<Long>thenApply(ignored -> {
                throw failure;
            });
        }).thenCompose(f -> f);
    }
}
