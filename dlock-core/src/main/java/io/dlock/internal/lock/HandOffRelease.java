package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.RenewalSender;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The release of exclusive kinds with a {@link LocalCohort}: when an owner releases its last acquisition and other
 * owners of this client wait behind it, a hand-off script moves the lock to one of them; otherwise (or when the
 * script moves nothing) the kind's release script runs. Replies like a release: 1 + n = the owner's last hold is gone
 * and its unlock message reached n subscribers (a hand-off counts as 1), 0 = holds remain, nil = the owner held
 * nothing. Keeps the cohort informed either way: when the message reached other clients' waiters, this client's
 * owners give them a head start ({@link LocalCohort#released(long, boolean, long)}).
 *
 * <p>The shapes of hand-off, chosen by the kind ({@link HandOffScript#pick()}):
 * <ul>
 *   <li>to the first local waiter (the plain lock): the script moves the lock to it or answers that it moved nothing,
 *       and then the release script runs;</li>
 *   <li>to whichever of all local waiters Redis has first in its own line (the fair lock): one script releases, and
 *       if the first in line is one of them, gives it the lock; otherwise it is an ordinary release;</li>
 *   <li>to the first local writer, else to every local reader at once (the write side of a read-write lock).</li>
 * </ul>
 */
final class HandOffRelease {

    /**
     * A waiter the lock may be handed to: its hash field, lease in ms, how its hold is renewed, and the context (kind)
     * its hold is recorded in.
     */
    record Receiver(String field, long leaseMs, RenewalSender renewal, LockContext grantedIn) {
    }

    /** What a hand-off script did. */
    sealed interface Outcome {
        /** The lock moved to the receiver at this index. */
        record MovedTo(int receiver) implements Outcome {
        }

        /** Nothing moved and nothing was released: the release script runs next. */
        record NotMoved() implements Outcome {
        }

        /** Nothing moved, but the script released as the release script would have, with this reply. */
        record Released(Long reply) implements Outcome {
        }

        /** Every receiver (all waiting for shared holds) got its hold; the releaser's hold is gone. */
        record GrantedToAll() implements Outcome {
        }
    }

    /** A kind's hand-off script. */
    interface HandOffScript {
        /** Sends the script for the releasing owner and these receivers, in the cohort's order. */
        CompletableFuture<Outcome> send(List<Receiver> receivers);

        /** @return which local waiters the script is sent for ({@link LocalLine.Pick#FIRST} by default) */
        default LocalLine.Pick pick() {
            return LocalLine.Pick.FIRST;
        }

        /**
         * @param leaseMs the waiter's lease in ms, the watchdog timeout for a watchdog lease
         * @return what the script is told of {@code waiter}; by default its {@link LockProtocol#holdField} renewed as a
         *         hash field and recorded in the protocol's own context
         */
        default Receiver receiver(LockProtocol protocol, LocalWaiter waiter, long leaseMs) {
            return new Receiver(protocol.holdField(waiter.ownerId), leaseMs,
                    protocol.context().services().hashFieldRenewal, protocol.context());
        }

        /** The lock was handed to {@code ownerId}, before its wait ends: the kind drops what its waiting left. */
        default void handedTo(long ownerId) {
        }
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
        List<LocalWaiter> reserved = cohort == null ? List.of()
                : cohort.reserveHandoff(ownerId, hold, handOff.pick());
        long messagesBefore = cohort == null ? 0 : cohort.unlockMessages();
        if (reserved.isEmpty()) {
            return releaseInRedis(protocol, ownerId, release, messagesBefore);
        }
        List<Receiver> receivers = new ArrayList<>(reserved.size());
        for (LocalWaiter waiter : reserved) {
            receivers.add(handOff.receiver(protocol, waiter,
                    waiter.leaseMs == DistributedLock.LEASE_WATCHDOG ? services.renewer.watchdogMs() : waiter.leaseMs));
        }
        long sentAt = services.renewer.nanoTime();
        CompletableFuture<Outcome> reply = Errors.call(() -> handOff.send(receivers));
        return reply.handle((outcome, error) -> {
            if (error == null && outcome instanceof Outcome.MovedTo moved) {
                LocalWaiter next = reserved.get(moved.receiver());
                Receiver to = receivers.get(moved.receiver());
                Hold nextHold = to.grantedIn().recordGrant(protocol.holdKey(), to.field(), next.ownerId, next.leaseMs,
                        sentAt, to.renewal());
                handOff.handedTo(next.ownerId);
                services.events.get().handedOff(nextHold);
                // The receivers were reserved before the script was sent, so they still wait for exactly this outcome
                // and nothing else can have sent them to Redis. If the receiver's caller gave up meanwhile, its own
                // acquisition gives the lock back: never a release on its behalf here, which raced with a new attempt
                // of the same owner and freed a lock that owner believed it held (issue 18, see
                // LocalCohort#reserveHandoff).
                cohort.handedOff(reserved, moved.receiver(), nextHold);
                return CompletableFuture.completedFuture(1L);
            }
            if (error == null && outcome instanceof Outcome.GrantedToAll) {
                for (int i = 0; i < reserved.size(); i++) {
                    LocalWaiter waiter = reserved.get(i);
                    Receiver to = receivers.get(i);
                    Hold granted = to.grantedIn().recordGrant(protocol.holdKey(), to.field(), waiter.ownerId,
                            waiter.leaseMs, sentAt, to.renewal());
                    handOff.handedTo(waiter.ownerId);
                    services.events.get().handedOff(granted);
                }
                cohort.handedOffShared(reserved);
                services.cohorts.tidy(name, cohort);
                return CompletableFuture.completedFuture(1L);
            }
            // Not moved, or unknown after an error: the receivers ask Redis themselves; this release goes on. A
            // hand-off that ran although its reply was lost gave a receiver a count its client does not know of: its
            // next attempt adopts it (known-count rule), and if it gives up instead, its give-up drops it.
            if (error != null) {
                receivers.forEach(r -> services.holds.mayHaveRun(new HoldId(protocol.holdKey(), r.field())));
            }
            cohort.handoffFailed(reserved);
            if (error != null) {
                return CompletableFuture.<Long>failedFuture(error);
            }
            if (outcome instanceof Outcome.Released released) {
                return CompletableFuture.completedFuture(released.reply())
                        .thenApply(r -> afterRelease(protocol, ownerId, r, messagesBefore));
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
        return release.get().thenApply(released -> afterRelease(protocol, ownerId, released, messagesBefore));
    }

    /** Tells the cohort what a release through Redis did; returns its reply. */
    private static Long afterRelease(LockProtocol protocol, long ownerId, Long released, long messagesBefore) {
        LockServices services = protocol.context().services();
        String name = protocol.context().name();
        if (released == null) {
            services.cohorts.released(name, ownerId);
        } else if (released >= 1L) {
            // this client's own subscription, when it has one, is among the receivers
            long own = services.wakeups.listensTo(protocol.wakeupChannel(ownerId)) ? 1 : 0;
            services.cohorts.released(name, ownerId, released - 1 > own, messagesBefore + own + 1);
        }
        return released;
    }
}
