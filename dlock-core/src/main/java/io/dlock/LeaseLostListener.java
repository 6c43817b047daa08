package io.dlock;

/**
 * Told when a hold this client believes it has turns out not to be held.
 *
 * <p>Called once per lost hold, on the client's executor (never on a Redis I/O thread). Exceptions thrown by a
 * listener are caught and logged. Must be thread-safe: holds of different locks may be lost at the same time.
 */
@FunctionalInterface
public interface LeaseLostListener {
    void leaseLost(LeaseLostEvent event);
}
