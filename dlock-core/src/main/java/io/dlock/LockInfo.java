package io.dlock;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A read-only snapshot of one lock, of any kind, as {@link LockClient#inspect(String)} saw it.
 *
 * @param name         the lock's name
 * @param type         the kind of lock found, {@link Type#NONE} when free
 * @param mode         {@link Mode#READ} or {@link Mode#WRITE} for a read-write lock, null otherwise
 * @param holders      who holds it
 * @param ttlMillis    remaining time to live, with the codes of {@link DistributedLock#remainTimeToLive()}
 * @param waiters      the fair-lock queue in order, empty for other kinds
 * @param fencingToken the last fencing token issued for the name, or null
 */
public record LockInfo(String name, Type type, Mode mode, List<Holder> holders, long ttlMillis,
                       List<Waiter> waiters, Long fencingToken) {

    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        holders = List.copyOf(holders);
        waiters = List.copyOf(waiters);
    }

    /** What kind of lock lives at the name. */
    public enum Type { NONE, LOCK, READ_WRITE }

    /** The mode of a read-write lock. */
    public enum Mode { READ, WRITE }

    /** One holder: a client id, an owner (thread) id and its hold count; {@code write} for a write hold. */
    public record Holder(String clientId, long threadId, int holdCount, boolean write) {
    }

    /** One fair-lock waiter and the deadline of its place in the queue. */
    public record Waiter(String clientId, long threadId, Instant deadline) {
    }
}
