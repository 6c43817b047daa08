package io.dlock.internal.lock;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import io.dlock.internal.Errors;
import io.dlock.internal.lease.Hold;

import java.util.concurrent.CompletableFuture;

/**
 * What a {@link LockProtocol} works with: the client's {@link LockServices}, the lock's name and kind, and the few
 * rules every kind applies the same way when it builds script arguments (owner fields, leases, the publish command,
 * the wall clock) or reads the common layout. Holds no callbacks and keeps no books: {@link RedisLock} does. Immutable;
 * one per lock object (shared by the views of {@code as(owner)}).
 *
 * @param services the client's shared services
 * @param name     the lock's name (already validated)
 * @param kind     the kind of the lock: given to the holds it begins and reported with its events
 */
record LockContext(LockServices services, String name, LockKind kind) {
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

    /** @return the owner's field, {@code <client id>:<owner id>} (docs/protocol.md §1) */
    String ownerField(long ownerId) {
        return services.settings().clientId() + ":" + ownerId;
    }

    /** @return the client's watchdog timeout (ms) */
    long watchdogMs() {
        return services.settings().watchdogMs();
    }

    /** @return a fair-lock waiter's slot when the caller gives no wait time (ms) */
    long fairLockWaitMs() {
        return services.settings().fairLockWaitMs();
    }

    /** @return the scripts' publish command: {@code "publish"}, {@code "spublish"} or {@code "both"} */
    String publishCommand() {
        return services.settings().publishCommand();
    }

    /** @return the wall clock in ms since the epoch, for the arguments Redisson's scripts expect (fair-lock deadlines) */
    long epochMillis() {
        return services.clock().epochMillis();
    }

    /** @return the lease to send for {@code leaseMs}: the watchdog timeout for {@link DistributedLock#LEASE_WATCHDOG} */
    long effectiveLease(long leaseMs) {
        return leaseMs == DistributedLock.LEASE_WATCHDOG ? watchdogMs() : leaseMs;
    }

    /** @return the TTL to keep after releasing one of several acquisitions of {@code hold} (ms; watchdog if unknown) */
    long leaseAfterRelease(Hold hold) {
        return hold != null ? hold.leaseAfterPartialRelease(watchdogMs()) : watchdogMs();
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
        return mapErrors(services.redis().commands().exists(name).toCompletableFuture().thenApply(n -> n != null && n > 0),
                "isLocked");
    }

    /** @return the PTTL of the hash at the lock's name (Redis's -2 / -1 included) */
    CompletableFuture<Long> hashTtl() {
        return mapErrors(services.redis().commands().pttl(name).toCompletableFuture(), "remainTimeToLive");
    }

    /** @return the count in {@code field} of the hash at the lock's name; 0 without one */
    CompletableFuture<Integer> hashCount(String field) {
        return mapErrors(services.redis().commands().hget(name, field).toCompletableFuture()
                .thenApply(count -> count == null ? 0 : Integer.parseInt(count)), "getHoldCount");
    }
}
