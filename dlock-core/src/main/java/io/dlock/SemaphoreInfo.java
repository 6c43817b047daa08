package io.dlock;

import java.util.List;
import java.util.Objects;

/**
 * A read-only snapshot of a semaphore, a {@link DistributedSemaphore} or a {@link LeasedSemaphore} (written by dlock
 * or Redisson), as {@link LockClient#inspectSemaphore(String)} read it in one round trip.
 *
 * <p>In Redis a plain semaphore and a leased one with no permit out look the same: a count and nothing else. A leased
 * semaphore's acquired permits are its permit table; they carry no owner (Redisson's wire has none), only an id and
 * an expiry, which is judged here, as by dlock's scripts, by the Redis server's clock.
 *
 * @param name             the semaphore's name
 * @param availablePermits the permits that can be taken now: the count in Redis, plus the {@code expiredPermits} that
 *                         the next operation gives back (what {@link LeasedSemaphore#availablePermits()} would answer);
 *                         0 when the semaphore was never set; may be negative (see
 *                         {@link DistributedSemaphore#addPermits(int)})
 * @param ttlMillis        the count's remaining time to live, with the codes of
 *                         {@link DistributedLock#remainTimeToLive()}: {@link DistributedLock#TTL_NO_EXPIRY} (-1) for
 *                         none, {@link DistributedLock#TTL_NOT_LOCKED} (-2) when there is no count (never set,
 *                         deleted or expired)
 * @param permits          the leased permits whose lease still runs, the soonest to end first (those without a lease
 *                         last); empty for a plain semaphore
 * @param expiredPermits   leased permits whose lease has ended but that no operation has given back yet; counted in
 *                         {@code availablePermits}, not listed in {@code permits}
 */
public record SemaphoreInfo(String name, long availablePermits, long ttlMillis, List<PermitLease> permits,
                            int expiredPermits) {

    /**
     * @throws NullPointerException     when {@code name} or {@code permits} is null
     * @throws IllegalArgumentException when {@code expiredPermits} is negative
     */
    public SemaphoreInfo {
        Objects.requireNonNull(name, "name");
        permits = List.copyOf(permits);
        if (expiredPermits < 0) {
            throw new IllegalArgumentException("expiredPermits must not be negative: " + expiredPermits);
        }
    }

    /** @return whether the semaphore has a count in Redis (it was set, and has not been deleted or expired) */
    public boolean isSet() {
        return ttlMillis != DistributedLock.TTL_NOT_LOCKED;
    }

    /**
     * @return whether the name holds a leased semaphore's permit table, that is, at least one leased permit (live or
     *         expired) is out; false for a plain semaphore and for a leased one with none out, which Redis cannot
     *         tell apart
     */
    public boolean hasLeasedPermits() {
        return !permits.isEmpty() || expiredPermits > 0;
    }

    /**
     * @return for a leased semaphore, its size: the available permits plus the leased ones
     *         ({@code availablePermits + permits().size()}), which acquisitions and releases never change. For a plain
     *         semaphore, whose taken permits leave no trace in Redis, this is only {@code availablePermits}
     */
    public long totalPermits() {
        return availablePermits + permits.size();
    }

    /**
     * One leased permit.
     *
     * @param id         the permit's id, 32 lower-case hex digits (as {@link Permit#id()} and Redisson show it; the
     *                   id {@link LeasedSemaphore#release(String)} takes)
     * @param leaseMillis how much longer its lease runs, by the Redis server's clock, at least 1;
     *                   {@link DistributedLock#TTL_NO_EXPIRY} (-1) for a permit without a lease (Redisson's, taken
     *                   without a lease time), which never expires
     */
    public record PermitLease(String id, long leaseMillis) {
        /** @throws NullPointerException when {@code id} is null */
        public PermitLease {
            Objects.requireNonNull(id, "id");
        }
    }
}
