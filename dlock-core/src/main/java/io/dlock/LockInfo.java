package io.dlock;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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

    /**
     * One holder: a client id, an owner (thread) id and its hold count; {@code write} for a write hold; and who the
     * holding client is, when its card says so.
     *
     * <p>The identity is read beside the hold, from the card that every dlock client keeps in Redis while it runs
     * (host, process id, application; docs/protocol.md §6.1), not from the lock: it is empty when the holder has no
     * card. That is the case of a Redisson client (Redisson writes none, and its owner fields have the same shape as
     * dlock's, so nothing else tells the two apart), of a dlock client whose card expired (the process is gone; its
     * hold expires too) or could not be written (the Redis user may not write {@code dlock_client:*} keys), and of a
     * holder of a snapshot built by hand. For that reason {@link #equals} and {@link #hashCode} compare the hold only
     * (client id, owner id, hold count, write), not the identity: a holder built from those four equals the one
     * {@link LockClient#inspect} reports, whether or not a card was found.
     *
     * <p>The {@link #details()} of a hold (since when, which thread) come from the lock's hold record, which only a
     * plain lock's holder built with {@link LockClientConfig.Builder#holdDetails} writes (docs/protocol.md §6.2);
     * they are empty otherwise, and {@link #equals} ignores them too.
     *
     * @param identity who the holding client is, when its card was found; never null
     * @param details  since when it holds and which thread asked, when its hold record was found; never null
     */
    public record Holder(String clientId, long threadId, int holdCount, boolean write,
                         Optional<ClientIdentity> identity, Optional<HoldDetails> details) {

        /**
         * @throws NullPointerException when {@code identity} or {@code details} is null (use {@link Optional#empty()})
         */
        public Holder {
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(details, "details");
        }

        /** A holder whose hold details are not known. */
        public Holder(String clientId, long threadId, int holdCount, boolean write,
                      Optional<ClientIdentity> identity) {
            this(clientId, threadId, holdCount, write, identity, Optional.empty());
        }

        /** A holder whose identity and hold details are not known. */
        public Holder(String clientId, long threadId, int holdCount, boolean write) {
            this(clientId, threadId, holdCount, write, Optional.empty(), Optional.empty());
        }

        /** Compares the hold (client id, owner id, hold count, write), not {@link #identity()} or {@link #details()}. */
        @Override
        public final boolean equals(Object other) {
            return other instanceof Holder that && threadId == that.threadId && holdCount == that.holdCount
                    && write == that.write && Objects.equals(clientId, that.clientId);
        }

        @Override
        public final int hashCode() {
            return Objects.hash(clientId, threadId, holdCount, write);
        }
    }

    /**
     * What a hold record says of a hold ({@link LockClientConfig.Builder#holdDetails}).
     *
     * @param since  when the hold was taken (or handed to this holder), by the Redis server's clock
     * @param thread the name of the thread that asked for it, as it was then; empty when not known
     */
    public record HoldDetails(Instant since, String thread) {
        /** @throws NullPointerException when an argument is null */
        public HoldDetails {
            Objects.requireNonNull(since, "since");
            Objects.requireNonNull(thread, "thread");
        }
    }

    /** One fair-lock waiter and the deadline of its place in the queue. */
    public record Waiter(String clientId, long threadId, Instant deadline) {
    }
}
