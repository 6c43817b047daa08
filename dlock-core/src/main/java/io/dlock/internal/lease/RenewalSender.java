package io.dlock.internal.lease;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How one kind of hold is renewed: the plain lock's hash field, a read lock's per-hold keys, … The renewer groups
 * the due holds by their sender (identity) and calls each with its holds, in chunks.
 */
@FunctionalInterface
public interface RenewalSender {

    /**
     * Resets the TTL of every hold in {@code holds} whose owner field still exists to {@code leaseMs}.
     *
     * @return for each hold, in order, whether it still existed; a failed future when Redis failed
     */
    CompletableFuture<List<Boolean>> renew(List<Hold> holds, long leaseMs);

    /**
     * Whether each acquisition of a hold of this kind expires on its own (read holds: one timeout key per
     * acquisition, the hold lasting as long as the longest), rather than every acquisition resetting one TTL (plain,
     * fair, write). Decides how the hold's known validity follows acquisitions, renewals and partial releases.
     */
    default boolean expiresPerAcquisition() {
        return false;
    }
}
