package io.dlock.cli;

import io.dlock.LeaseLostEvent;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * What one {@code dlock run} holds while its command runs, as {@link LockedRun} and its parts use it: a lock
 * ({@link LockHold}) or one permit of a leased semaphore ({@link PermitHold}). Every method may be called from any
 * thread (main, shutdown hook, lease-lost listener, lease guard).
 */
interface RunHold {

    /** What messages call it. */
    HoldWords words();

    /** How it was acquired, for the {@code --verbose} message: {@code as <client id>:<pid>}, {@code as permit <id>}. */
    String acquiredAs();

    /**
     * Starts the acquisition; cancelling the future abandons it (the library gives back what it granted meanwhile).
     *
     * @param wait  null to wait for ever, zero for one attempt
     * @param lease null for the watchdog
     * @return completes with whether it was acquired
     */
    CompletableFuture<Boolean> acquire(Duration wait, Duration lease);

    /** ns the hold is known valid for, as the library counts it; 0 when not held. Never blocks. */
    long validForNanos();

    /** A lease-loss notification (the client's listener hears every hold of the client) about this hold. */
    boolean isAbout(LeaseLostEvent event);

    /** A loss by expiry, as dlock itself finds it (the library has not reported it, or not yet). */
    LeaseLostEvent expired();

    /** Who holds it now, for the busy message; never throws. */
    String holderPhrase();

    /**
     * After the acquisition's future was cancelled (a signal while waiting).
     *
     * @return whether the hold was granted all the same (then it is ours to release)
     */
    boolean heldAfterAbandonedWait();

    /**
     * Releases the hold, waiting at most a few seconds; a failure is a warning (the hold then expires with its
     * lease).
     *
     * @param lost the loss already reported, if any: then a hold found gone needs no warning
     */
    void release(LeaseLostEvent lost, RunMessages messages);

    /** Variables added to the command's environment once the hold is acquired. */
    default Map<String, String> environment() {
        return Map.of();
    }

    /** Watches the hold's deadline; see {@link LeaseGuard}. */
    default LeaseGuard guard(StopPlan plan, OrphanGuard orphans, LongConsumer onStopTime) {
        return new LeaseGuard(this::validForNanos, plan, orphans, onStopTime);
    }
}
