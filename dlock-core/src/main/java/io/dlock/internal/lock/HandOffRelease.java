package io.dlock.internal.lock;

import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.script.ScriptCall;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The release of exclusive kinds with a {@link LocalCohort}: when an owner releases its last acquisition and other
 * owners of this client wait behind it, a hand-off script moves the lock to one of them; otherwise (or when the
 * script moves nothing) the kind's release script runs. Replies like a release: 1 + n = the owner's last hold is gone
 * and its unlock message reached n subscribers (a hand-off counts as 1), 0 = holds remain, nil = the owner held
 * nothing. Keeps the cohort informed either way: when the message reached other clients' waiters, this client's
 * owners give them a head start ({@link LocalCohort#released(long, boolean, long)}).
 *
 * <p>The kind describes its hand-off ({@link HandOff}); this class alone sends it and keeps the books: the receivers'
 * grants ({@link RedisLock#recordGrant}), their waiting marks, the events and the cohort.
 *
 * <p>The shapes of hand-off, chosen by the kind ({@link HandOff#pick()}):
 * <ul>
 *   <li>to the first local waiter (the plain lock): the script moves the lock to it or answers that it moved nothing,
 *       and then the release script runs;</li>
 *   <li>to whichever of all local waiters Redis has first in its own line (the fair lock): one script releases, and
 *       if the first in line is one of them, gives it the lock; otherwise it is an ordinary release;</li>
 *   <li>to the first local writer, else to every local reader at once (the write side of a read-write lock).</li>
 * </ul>
 */
final class HandOffRelease {

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

    private HandOffRelease() {
    }

    /**
     * Releases one acquisition of {@code ownerId} of {@code lock}, handing the lock over when it was the last one and
     * another owner of this client waits.
     *
     * @param hold    this client's record of the hold, or null
     * @param handOff the kind's hand-off
     * @param release the kind's release call
     */
    static CompletableFuture<Long> send(RedisLock lock, long ownerId, Hold hold, HandOff handOff,
                                        ScriptCall release) {
        LockProtocol protocol = lock.protocol;
        LockServices services = lock.services;
        String name = lock.name;
        LocalCohort cohort = services.cohorts().find(name);
        List<LocalWaiter> reserved = cohort == null ? List.of()
                : cohort.reserveHandoff(ownerId, hold, handOff.pick());
        long messagesBefore = cohort == null ? 0 : cohort.unlockMessages();
        if (reserved.isEmpty()) {
            return releaseInRedis(lock, ownerId, release, messagesBefore);
        }
        List<HandOff.Receiver> receivers = new ArrayList<>(reserved.size());
        for (LocalWaiter waiter : reserved) {
            receivers.add(handOff.receiver(waiter, protocol.context().effectiveLease(waiter.leaseMs)));
        }
        long sentAt = services.clock().nanoTime();
        CompletableFuture<Outcome> reply = Errors.call(() -> handOff.call(receivers).<Long>send(services.redis().scripts())
                .thenApply(handOff::read));
        return reply.handle((outcome, error) -> {
            if (error == null && outcome instanceof Outcome.MovedTo moved) {
                LocalWaiter next = reserved.get(moved.receiver());
                Hold nextHold = handedTo(lock, receivers.get(moved.receiver()), next, sentAt);
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
                    handedTo(lock, receivers.get(i), reserved.get(i), sentAt);
                }
                cohort.handedOffShared(reserved);
                services.cohorts().tidy(name, cohort);
                return CompletableFuture.completedFuture(1L);
            }
            // Not moved, or unknown after an error: the receivers ask Redis themselves; this release goes on. A
            // hand-off that ran although its reply was lost gave a receiver a count its client does not know of: its
            // next attempt adopts it (known-count rule), and if it gives up instead, its give-up drops it.
            if (error != null) {
                receivers.forEach(r -> services.holds().mayHaveRun(new HoldId(protocol.holdKey(), r.field())));
            }
            cohort.handoffFailed(reserved);
            if (error != null) {
                return CompletableFuture.<Long>failedFuture(error);
            }
            if (outcome instanceof Outcome.Released released) {
                return CompletableFuture.completedFuture(released.reply())
                        .thenApply(r -> afterRelease(lock, ownerId, r, messagesBefore));
            }
            return releaseInRedis(lock, ownerId, release, messagesBefore);
        }).thenCompose(f -> f);
    }

    /**
     * The hand-off gave {@code waiter} its hold: recorded as the receiver's kind has it, its waiting mark gone (the
     * script removed it in Redis), reported to the event listeners.
     */
    private static Hold handedTo(RedisLock lock, HandOff.Receiver to, LocalWaiter waiter, long sentAt) {
        Hold hold = lock.recordGrant(to.grantedAs(), to.field(), waiter.ownerId, waiter.leaseMs, sentAt);
        io.dlock.internal.lease.HoldTable.Mark mark = to.grantedAs().waitingMark();
        if (mark != null) {
            lock.services.holds().unmark(new HoldId(lock.protocol.holdKey(), to.field()), mark);
        }
        lock.services.events().get().handedOff(hold);
        return hold;
    }

    /**
     * @param messagesBefore the cohort's unlock message count before the release: the head start given to other
     *                       clients ends early once a message beyond this release's own arrives
     */
    private static CompletableFuture<Long> releaseInRedis(RedisLock lock, long ownerId, ScriptCall release,
                                                          long messagesBefore) {
        return release.<Long>send(lock.services.redis().scripts())
                .thenApply(released -> afterRelease(lock, ownerId, released, messagesBefore));
    }

    /** Tells the cohort what a release through Redis did; returns its reply. */
    private static Long afterRelease(RedisLock lock, long ownerId, Long released, long messagesBefore) {
        LockServices services = lock.services;
        String name = lock.name;
        LockProtocol protocol = lock.protocol;
        if (released == null) {
            services.cohorts().released(name, ownerId);
        } else if (released >= 1L) {
            // this client's own subscription, when it has one, is among the receivers
            long own = services.redis().wakeups().listensTo(protocol.wakeupChannel(ownerId)) ? 1 : 0;
            services.cohorts().released(name, ownerId, released - 1 > own, messagesBefore + own + 1);
        }
        return released;
    }
}
