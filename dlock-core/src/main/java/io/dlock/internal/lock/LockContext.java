package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import io.dlock.LockLostException;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;
import io.dlock.internal.lease.HoldTable.HoldId;
import io.dlock.internal.lease.RenewalSender;

import java.util.concurrent.CompletableFuture;

/**
 * What a {@link LockProtocol} works with: the client's {@link LockServices}, the lock's name and kind, and the few
 * rules every kind applies the same way when it builds script arguments and records a grant. Immutable; one per lock
 * object (shared by the views of {@code as(owner)}).
 *
 * @param services the client's shared services
 * @param name     the lock's name (already validated)
 * @param kind     the kind of the lock: given to the holds it begins and reported with its events
 */
record LockContext(LockServices services, String name, LockKind kind) {
    /** An acquire script's answer when the hold it would re-enter is gone from Redis (fragment {@code hold_gone}). */
    static final long HOLD_GONE = -4;

    /** Sends one acquire script; {@link #attempt}. */
    interface AcquireScript {
        /**
         * @param known the owner's count its client knows before this attempt (lost-reply rule, §1.7)
         * @param held  the script argument of the count the client counts on ({@link #heldArg}, §1.9)
         * @return the script's reply: nil when granted, {@link #HOLD_GONE}, or a kind's answer for a busy lock
         */
        CompletableFuture<Long> send(long known, String held);
    }

    /** What a kind adds to the handling of an acquire reply that every kind shares ({@link #attempt}). */
    interface AcquireReplies {
        /** The attempt is over without a wait: granted (called before {@link #granted}), or its hold was gone. */
        default void ended() {
        }

        /** The grant is recorded as {@code hold}. */
        default void granted(Hold hold) {
        }

        /** @return for a reply that is neither a grant nor {@link #HOLD_GONE}: how long to sleep at most (may throw) */
        default Long busy(long reply) {
            return reply;
        }
    }

    /** @return how errors name the lock: {@code lock 'x'}, {@code fair lock 'x'}, {@code lock 'x' (read side)}… */
    String describe() {
        return switch (kind) {
            case PLAIN -> "lock '" + name + "'";
            case FAIR -> "fair lock '" + name + "'";
            case FENCED -> "fenced lock '" + name + "'";
            case READ -> "lock '" + name + "' (read side)";
            case WRITE -> "lock '" + name + "' (write side)";
        };
    }

    /**
     * One acquire attempt for the hold {@code id}, by the rules every kind follows: sent through the lost-reply rule
     * ({@link io.dlock.internal.acquire.PendingAcquisitions#track}) with the counts the client knows and counts on; a grant (nil) is recorded
     * with the renewer before the caller hears of it; {@link #HOLD_GONE} fails the attempt ({@link #holdGone}); any
     * other reply is the kind's to read ({@link AcquireReplies#busy}).
     *
     * @param leaseMs the requested lease, or {@link DistributedLock#LEASE_WATCHDOG}
     * @param renewal how the kind's holds are renewed
     * @return null when acquired, else how long to sleep at most
     */
    CompletableFuture<Long> attempt(HoldId id, long ownerId, long leaseMs, RenewalSender renewal, AcquireScript script,
                                    AcquireReplies replies) {
        String held = heldArg(id);
        long sentAt = services.renewer.nanoTime();
        return services.pending.<Long>track(id, known -> script.send(known, held), reply -> {
            if (reply == null) {
                replies.ended();
                replies.granted(recordGrant(id.key(), id.field(), ownerId, leaseMs, sentAt, renewal));
                return null;
            }
            if (reply == HOLD_GONE) {
                replies.ended();
                throw holdGone(id);
            }
            return replies.busy(reply);
        });
    }

    /** @return the owner's field, {@code <client id>:<owner id>} (docs/protocol.md §1) */
    String ownerField(long ownerId) {
        return services.clientId + ":" + ownerId;
    }

    /** @return the lease to send for {@code leaseMs}: the watchdog timeout for {@link DistributedLock#LEASE_WATCHDOG} */
    long effectiveLease(long leaseMs) {
        return leaseMs == DistributedLock.LEASE_WATCHDOG ? services.renewer.watchdogMs() : leaseMs;
    }

    /** @return the TTL to keep after releasing one of several acquisitions of {@code hold} (ms; watchdog if unknown) */
    long leaseAfterRelease(Hold hold) {
        return hold != null ? hold.leaseAfterPartialRelease(services.renewer.watchdogMs())
                : services.renewer.watchdogMs();
    }

    /**
     * The release scripts' count argument: the owner's count after the release as this client knows it, or
     * {@code -1} when it knows of no hold (the script then takes one off).
     */
    String countAfterRelease(HoldId id, Hold hold) {
        return Long.toString(services.holds.countAfterRelease(id, hold).orElse(-1));
    }

    /** The acquire scripts' "held" argument for {@code id} ({@link io.dlock.internal.lease.HoldTable#heldCount}). */
    String heldArg(HoldId id) {
        return Long.toString(services.holds.heldCount(id));
    }

    /**
     * An acquisition found the hold it would re-enter gone from Redis ({@link #HOLD_GONE}): removed by a forceUnlock, a
     * failover or a restart, or run out, so another owner may have held the lock since. Reports the loss to the
     * lease-lost listeners ({@code REMOVED}, or {@code EXPIRED} when its lease had run out by this client's count) and
     * forgets the hold: the owner's outer acquisitions are gone with it.
     *
     * @return the exception for the caller of the acquisition
     */
    LockLostException holdGone(HoldId id) {
        Hold hold = services.renewer.find(id.key(), id.field());
        if (hold != null) {
            services.renewer.goneFromRedis(hold);
        }
        return new LockLostException(name, describe() + ": the hold of owner " + id.field() + " that this "
                + "acquisition would re-enter is gone from Redis (removed by a forceUnlock, a failover or a restart, "
                + "or its lease ran out), so another owner may have held the lock meanwhile; nothing was acquired and "
                + "the outer acquisitions are void (what the lock protected may have been changed)");
    }

    /**
     * Records a grant of Redis with the client's renewer: a first hold of the owner or one more acquisition of it.
     *
     * @param key    the hold's key in the hold table
     * @param sentAt when the granting request was sent ({@code renewer.nanoTime()})
     */
    Hold recordGrant(String key, String field, long ownerId, long leaseMs, long sentAt, RenewalSender renewal) {
        return services.renewer.acquired(kind, name, key, field, ownerId, leaseMs, sentAt, renewal);
    }

    /** Maps a Redis failure of {@code operation} to the API's exception, naming this lock. */
    <T> CompletableFuture<T> mapErrors(CompletableFuture<T> reply, String operation) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw Errors.toApi(error, name, operation);
            }
            return value;
        });
    }

    // ---- reads of the common layout: a hash at NAME, one field per owner ----

    /** @return whether the hash at the lock's name exists */
    CompletableFuture<Boolean> hashExists() {
        return mapErrors(services.redis.exists(name).toCompletableFuture().thenApply(n -> n != null && n > 0),
                "isLocked");
    }

    /** @return the PTTL of the hash at the lock's name (Redis's -2 / -1 included) */
    CompletableFuture<Long> hashTtl() {
        return mapErrors(services.redis.pttl(name).toCompletableFuture(), "remainTimeToLive");
    }

    /** @return the count in {@code field} of the hash at the lock's name; 0 without one */
    CompletableFuture<Integer> hashCount(String field) {
        return mapErrors(services.redis.hget(name, field).toCompletableFuture()
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count)), "getHoldCount");
    }
}
