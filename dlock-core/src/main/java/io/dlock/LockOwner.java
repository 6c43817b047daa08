package io.dlock;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who a hold belongs to, when that is not the calling thread: a handle to pass to {@link DistributedLock#as}, so that
 * work which hops threads (an async pipeline, a job handed to a pool, a hold released by a timer) acts as one owner.
 * In Redis a hold is the field {@code <client id>:<owner id>} of the lock; this is the owner id.
 *
 * <pre>{@code
 * LockOwner job = client.newOwner();
 * DistributedLock lock = client.getLock("reports").as(job);
 * lock.lockAsync()                                   // held by the job, not by the thread that asked
 *     .thenCompose(held -> runReport())
 *     .whenComplete((done, error) -> lock.unlockAsync());   // on whatever thread the report finished
 * }</pre>
 *
 * <h2>Ids</h2>
 * <ul>
 *   <li>{@link LockClient#newOwner()} hands out <b>negative</b> ids, never the same one twice in a JVM (a counter
 *       going down from -1, shared by every client of the JVM).</li>
 *   <li>The synchronous API, and the asynchronous methods called without an owner, use the calling thread's
 *       {@link Thread#getId() id}, which Java keeps <b>positive</b>: {@link #ofThread(Thread)}. So a new owner never
 *       shares holds with a thread, and two new owners never share holds with each other.</li>
 *   <li>{@link #of(long)} takes any id the caller chooses (Redisson's thread id of another process, a process id):
 *       keeping it apart from the ids above is then the caller's job.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe; equal when the ids are equal. A handle belongs to no client: on every client it stands
 * for the owner id, and the hold's field carries the id of the client whose lock it is used with.
 */
public final class LockOwner {
    /** The last id {@link #fresh()} handed out. */
    private static final AtomicLong LAST_FRESH = new AtomicLong();

    private final long id;

    private LockOwner(long id) {
        this.id = id;
    }

    /** A negative id never handed out before in this JVM; what {@link LockClient#newOwner()} returns. */
    static LockOwner fresh() {
        return new LockOwner(LAST_FRESH.decrementAndGet());
    }

    /**
     * The owner that the synchronous API uses for {@code thread}, for another thread to act on its holds (release the
     * hold of a thread that died, read its {@link DistributedLock#leaseValidFor()}). Never blocks.
     *
     * @throws NullPointerException when {@code thread} is null
     */
    public static LockOwner ofThread(Thread thread) {
        return new LockOwner(Objects.requireNonNull(thread, "thread").getId());
    }

    /** {@link #ofThread(Thread)} of the calling thread. */
    public static LockOwner ofCurrentThread() {
        return new LockOwner(Thread.currentThread().getId());
    }

    /**
     * An owner with an id of the caller's choosing (see the class comment for the ids that dlock itself uses). It
     * replaces the deprecated {@code long ownerId} forms of the async methods: Redisson's
     * {@code lockAsync(leaseTime, unit, threadId)} is {@code lock.as(LockOwner.of(threadId)).lockAsync(leaseTime, unit)}.
     */
    public static LockOwner of(long id) {
        return new LockOwner(id);
    }

    /** @return the owner id: the part after the client id in the hold's field, {@code <client id>:<owner id>} */
    public long id() {
        return id;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOwner that && that.id == id;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id);
    }

    /** @return {@code LockOwner[<id>]} */
    @Override
    public String toString() {
        return "LockOwner[" + id + "]";
    }
}
