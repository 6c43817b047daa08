package io.dlock;

/**
 * The owner's hold is gone from Redis although this client still counted on it: its lease ran out in Redis before the
 * client counted it out (a long pause, clock drift), another client removed it ({@code forceUnlock}), or Redis lost it
 * (a failover to a replica that missed it, a restart without persistence). Whatever the lock protected may have been
 * changed by another holder since. Thrown by {@link DistributedLock#extendLease}, and by an acquisition that would
 * re-enter such a hold (which it never re-creates); the client's {@link LeaseLostListener}s are told of the loss as
 * well.
 *
 * <p>Also thrown by {@link DistributedCountDownLatch#await()} and its timed and async forms when Redis lost the
 * latch's count while the await waited (a restart without persistence, a failover to a node without the key): the
 * latch may not have opened by count-downs; {@link #lockName()} is the latch's name.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param lockName the lock whose hold is gone
     * @param message  the whole message, naming the lock
     */
    public LockLostException(String lockName, String message) {
        super(lockName, message, null);
    }
}
