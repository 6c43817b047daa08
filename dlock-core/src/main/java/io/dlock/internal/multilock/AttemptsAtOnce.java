package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.internal.Errors;
import io.dlock.internal.lock.RedisLocks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One single attempt on each member of a multi-lock from a given one on, all sent at once: one round trip for the
 * members that are free instead of one per member, for the sync and the async acquisitions alike. Only once the
 * acquisition holds the first member: every owner of the same multi-lock takes that member first, so the one that
 * holds it is the one due to take the others, and an owner still without it would only compete with that one for
 * them (measured on the bench's S12, 8 threads of one client: attempts at once from the first member on raised the
 * round trips per acquisition from 5.2 to 8.0, as owners without the first member took later ones, and gave them
 * back, ahead of its holder).
 *
 * <p>The rule that keeps the global order's promise (no deadlock between multi-locks): an acquisition only ever
 * <em>waits</em> for a member while it holds members that come before it, never one after it. A single attempt never
 * waits, so the attempts may take members out of order; what they took beyond the first member they could not take
 * is given back, and answered, before the acquisition goes on to wait for that member. So the caller holds exactly
 * the members before the first refusal, in order, as if it had taken them one after another.
 *
 * <p>The attempts are the members' own single attempts, without the hand-over to the client's executor of the public
 * {@code tryLockAsync} ({@link RedisLocks#acquireForMultiLock}): the acquisition goes on from the answers at once.
 *
 * <p>A member that is held by another owner of this client is refused within the client, without a round trip (a
 * single attempt never queues behind a local owner), so attempting members that are likely busy costs little.
 */
final class AttemptsAtOnce {
    private AttemptsAtOnce() {
    }

    /**
     * Attempts members {@code from} to the last at once (each {@code tryLockAsync(0, …)}, the lease of
     * {@link RedisMultiLock#leaseWhileTaking}), then gives back every member taken beyond the first refusal.
     *
     * @param owned   every member in acquisition order, acting for the acquiring owner
     * @param from    the first member the owner does not hold through this acquisition yet
     * @param leaseMs the multi-lock's lease, or {@link DistributedLock#LEASE_WATCHDOG}
     * @return completes with how many members from {@code from} on are now held, in order (the rest given back and
     *         answered); fails when an attempt failed, with the first failed member's own exception (in the global
     *         order), after every member these attempts took was given back (a failed give-back attached as
     *         suppressed). Never completes before every attempt was answered. Completes on whatever thread brings
     *         the last answer, a Redis I/O thread included ({@link RedisLocks#acquireForMultiLock}): a caller that
     *         hands a result to users hands it to the client's executor first.
     */
    static CompletableFuture<Integer> attempt(String name, List<DistributedLock> owned, int from, long leaseMs) {
        int count = owned.size() - from;
        boolean[] held = new boolean[count];
        Throwable[] errors = new Throwable[count];
        CompletableFuture<?>[] each = new CompletableFuture<?>[count];
        for (int i = 0; i < count; i++) {
            int at = i;
            DistributedLock member = owned.get(from + i);
            long lease = RedisMultiLock.leaseWhileTaking(from + i, owned.size(), leaseMs);
            each[i] = RedisLocks.acquireForMultiLock(member, 0, lease).result().handle((ok, error) -> {
                if (error != null) {
                    errors[at] = Errors.unwrap(error);
                } else {
                    held[at] = ok;
                }
                return null;
            });
        }
        return CompletableFuture.allOf(each).thenCompose(v -> {
            Throwable failure = null;
            for (Throwable error : errors) {
                if (error != null) {
                    failure = error;
                    break;
                }
            }
            int prefix = 0;
            while (failure == null && prefix < count && held[prefix]) {
                prefix++;
            }
            List<DistributedLock> giveBack = new ArrayList<>();
            for (int i = failure == null ? prefix : 0; i < count; i++) {
                if (held[i]) {
                    giveBack.add(owned.get(from + i));
                }
            }
            int kept = prefix;
            Throwable failed = failure;
            return RedisMultiLock.releaseAtOnce(name, giveBack, "giving back the members taken out of order", true)
                    .thenCompose(giveBackFailure -> {
                        if (failed != null) {
                            if (giveBackFailure != null) {
                                failed.addSuppressed(giveBackFailure);
                            }
                            return CompletableFuture.failedFuture(failed);
                        }
                        return giveBackFailure != null ? CompletableFuture.failedFuture(giveBackFailure)
                                : CompletableFuture.completedFuture(kept);
                    });
        });
    }
}
