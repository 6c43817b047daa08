package io.dlock.internal.lock;

/**
 * A lock acting for one fixed owner ({@link io.dlock.DistributedLock#as}): the API of {@link LockApi} over the lock it
 * was made of, with {@code ownerId} wherever a lock object of the client uses the calling thread. It keeps no state
 * besides the two, so views are cheap, immutable and thread-safe, and any number may exist for one owner; everything
 * an owner holds is kept by the client ({@link LockServices}), not by a view.
 */
class OwnerView extends LockApi {
    private final AbstractDistributedLock lock;
    private final long ownerId;

    OwnerView(AbstractDistributedLock lock, long ownerId) {
        this.lock = lock;
        this.ownerId = ownerId;
    }

    @Override
    final AbstractDistributedLock core() {
        return lock;
    }

    @Override
    final long owner() {
        return ownerId;
    }

    @Override
    public String toString() {
        return lock + " as owner " + ownerId;
    }
}
