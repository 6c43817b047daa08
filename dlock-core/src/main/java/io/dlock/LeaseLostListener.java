package io.dlock;

/**
 * Told when a hold this client believes it has turns out not to be held.
 *
 * <p>When: a hold with a fixed lease (a lock taken or extended with a lease time, a leased permit taken with one) is
 * reported when its {@code leaseValidFor()} reaches zero — the lease counted on the client's monotonic clock from
 * when the acquiring (or extending) request was sent, less 1% of it and 2 ms — so never before Redis could have let
 * it go, and, while the client's timer and executor keep up within that margin, before another client can get it; on
 * a loaded host the report may come some milliseconds after. A watchdog hold is reported when a renewal finds it gone
 * or renewals failed until its lease ran out; any hold when a request finds it gone from Redis (another client's
 * {@code forceUnlock}, a restart), at the latest at the next renewal round; every live hold when the client closes.
 *
 * <p>Called once per lost hold, on the client's executor (never on a Redis I/O thread). Exceptions thrown by a
 * listener are caught and logged. Must be thread-safe: holds of different locks may be lost at the same time.
 */
@FunctionalInterface
public interface LeaseLostListener {
    void leaseLost(LeaseLostEvent event);
}
