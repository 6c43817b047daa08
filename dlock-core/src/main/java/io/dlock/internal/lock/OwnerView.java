package io.dlock.internal.lock;

/**
 * The public lock API ({@link LockApi}) over a {@link RedisLock}, acting either for the calling thread (the lock objects
 * a client hands out: {@link #ofCallingThread}) or for one fixed owner (the views of
 * {@link io.dlock.DistributedLock#as}). It keeps no state besides the two, so views are cheap, immutable and
 * thread-safe, and any number may exist for one owner; everything an owner holds is kept by the client
 * ({@link LockServices}), not by a view.
 */
class OwnerView extends LockApi {
    private final RedisLock lock;
    /** The fixed owner; unused when {@link #callingThread}. */
    private final long ownerId;
    private final boolean callingThread;

    /** A view acting for {@code ownerId}. */
    OwnerView(RedisLock lock, long ownerId) {
        this(lock, ownerId, false);
    }

    OwnerView(RedisLock lock, long ownerId, boolean callingThread) {
        this.lock = lock;
        this.ownerId = ownerId;
        this.callingThread = callingThread;
    }

    /** @return the lock object whose owner is the thread that calls each method */
    static OwnerView ofCallingThread(RedisLock lock) {
        return new OwnerView(lock, 0, true);
    }

    @Override
    final RedisLock core() {
        return lock;
    }

    /** @return the calling thread's id, or the fixed owner's */
    @Override
    final long owner() {
        return callingThread ? Thread.currentThread().getId() : ownerId;
    }

    @Override
    public String toString() {
        return callingThread ? lock.toString() : lock + " as owner " + ownerId;
    }
}
