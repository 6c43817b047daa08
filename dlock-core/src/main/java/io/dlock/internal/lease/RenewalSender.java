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
     * Resets the TTL of every hold in {@code holds} whose owner field still exists to at least {@code leaseMs}, or,
     * with {@code leaseMs} 0, changes nothing and reads back how long Redis keeps each (the check of fixed-lease holds,
     * whose TTL another client may have changed).
     *
     * @return for each hold, in order, the ms Redis keeps it after the call ({@code -1}: no TTL), or 0 when it is
     *         gone; a failed future when Redis failed
     */
    CompletableFuture<List<Long>> renew(List<Hold> holds, long leaseMs);

    /**
     * Whether each acquisition of a hold of this kind expires on its own (read holds: one timeout key per
     * acquisition, the hold lasting as long as the longest), rather than every acquisition resetting one TTL (plain,
     * fair, write). Decides how the hold's known validity follows acquisitions, renewals and partial releases.
     */
    default boolean expiresPerAcquisition() {
        return false;
    }
}
