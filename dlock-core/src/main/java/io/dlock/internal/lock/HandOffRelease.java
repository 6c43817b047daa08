package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The release of exclusive kinds with a {@link LocalCohort}: when an owner releases its last acquisition and another
 * owner of this client waits behind it, a hand-off script moves the lock to the first of them; otherwise (or when the
 * script moves nothing) the kind's release script runs. Replies like a release: 1 + n = the owner's last hold is gone
 * and its unlock message reached n subscribers (a hand-off counts as 1), 0 = holds remain, nil = the owner held
 * nothing. Keeps the cohort informed either way: when the message reached other clients' waiters, this client's
 * owners give them a head start ({@link LocalCohort#released(long, boolean, long)}).
 */
final class HandOffRelease {

    /**
     * Sends a hand-off script for the receiver's field and lease (ms). Its reply: 1 = the lock moved to the receiver,
     * 0 = nothing moved (release as usual), nil = the owner held nothing.
     */
    interface HandOffScript {
        CompletableFuture<Long> send(String toField, long toLeaseMs);
    }

    private HandOffRelease() {
    }

    /**
     * Releases one acquisition of {@code ownerId} under {@code protocol}, handing the lock over when it was the last one and
     * another owner of this client waits.
     *
     * @param hold    this client's record of the hold, or null
     * @param handOff sends the hand-off script
     * @param release sends the release script
     */
    static CompletableFuture<Long> send(LockProtocol protocol, long ownerId, Hold hold, HandOffScript handOff,
                                        Supplier<CompletableFuture<Long>> release) {
        LockContext context = protocol.context();
        LockServices services = context.services();
        String name = context.name();
        LocalCohort cohort = services.cohorts.find(name);
        LocalWaiter next = cohort == null ? null : cohort.reserveHandoff(ownerId, hold);
        long messagesBefore = cohort == null ? 0 : cohort.unlockMessages();
        if (next == null) {
            return releaseInRedis(protocol, ownerId, release, messagesBefore);
        }
        String nextField = protocol.holdField(next.ownerId);
        long sentAt = services.renewer.nanoTime();
        CompletableFuture<Long> reply = Errors.call(() -> handOff.send(nextField,
                next.leaseMs == DistributedLock.LEASE_WATCHDOG ? services.renewer.watchdogMs() : next.leaseMs));
        return reply.handle((moved, error) -> {
            if (error == null && moved != null && moved == 1L) {
                Hold nextHold = context.recordGrant(protocol.holdKey(), nextField, next.ownerId, next.leaseMs, sentAt,
                        services.hashFieldRenewal);
                services.events.get().handedOff(nextHold);
                // The receiver was reserved before the script was sent, so it still waits for exactly this outcome
                // and nothing else can have sent it to Redis. If its caller gave up meanwhile, its own acquisition
                // gives the lock back: never a release on its behalf here, which raced with a new attempt of the same
                // owner and freed a lock that owner believed it held (issue 18, see LocalCohort#reserveHandoff).
                cohort.handedOff(next, nextHold);
                return CompletableFuture.completedFuture(1L);
            }
            // Not moved, or unknown after an error: the receiver asks Redis itself; this release goes on. A hand-off
            // that ran although its reply was lost gave the receiver a count its client does not know of: its next
            // attempt adopts it (known-count rule), and if it gives up instead, its give-up drops it.
            if (error != null) {
                services.holds.mayHaveRun(new HoldId(protocol.holdKey(), nextField));
            }
            cohort.handoffFailed(next);
            if (error != null) {
                return CompletableFuture.<Long>failedFuture(error);
            }
            if (moved == null) {
                services.cohorts.released(name, ownerId);
                return CompletableFuture.<Long>completedFuture(null);
            }
            return releaseInRedis(protocol, ownerId, release, messagesBefore);
        }).thenCompose(f -> f);
    }

    /**
     * @param messagesBefore the cohort's unlock message count before the release: the head start given to other
     *                       clients ends early once a message beyond this release's own arrives
     */
    private static CompletableFuture<Long> releaseInRedis(LockProtocol protocol, long ownerId,
                                                          Supplier<CompletableFuture<Long>> release,
                                                          long messagesBefore) {
        LockServices services = protocol.context().services();
        String name = protocol.context().name();
        return release.get().thenApply(released -> {
            if (released == null) {
                services.cohorts.released(name, ownerId);
            } else if (released >= 1L) {
                // this client's own subscription, when it has one, is among the receivers
                long own = services.wakeups.listensTo(protocol.wakeupChannel(ownerId)) ? 1 : 0;
                services.cohorts.released(name, ownerId, released - 1 > own, messagesBefore + own + 1);
            }
            return released;
        });
    }
}
