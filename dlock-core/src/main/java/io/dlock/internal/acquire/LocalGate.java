package io.dlock.internal.acquire;

/**
 * This client's own knowledge of the lock ({@code LocalCohort}) for one owner: lets the loop wait behind another
 * local owner without asking Redis. Exclusive kinds that support hand-offs provide one; others pass null.
 */
public interface LocalGate {
    /** @return whether another owner of this client holds the lock (a single attempt then fails at once) */
    boolean heldLocally();

    /** @return a place behind the local holder, or null when none holds it (attempt in Redis) */
    LocalTurn queue(long maxWaitNanos);

    /** Leaves the queue (unless a hand-off already chose this waiter). */
    void leave(LocalTurn waiter);

    /** A Redis attempt found the lock busy. */
    void busyInRedis();

    /** Asks Redis whether the local holder still holds the lock; if not, its waiters attempt in Redis. */
    void verifyHolder();

    /** This loop was sent to Redis but will not attempt (it ended meanwhile): the next local waiter may. */
    void passOn();

    /**
     * This loop is about to sleep on its channel: Redis refused it, and no other owner of this client held the lock
     * (it could not wait behind one). For a kind whose waiters keep a place in Redis while they sleep (the fair
     * lock's queue), {@code nudge} ends that sleep as soon as another owner of this client comes to hold the lock
     * (at once if one does already), so that the loop waits behind that owner and can be handed the lock in the
     * owner's release, instead of waiting for the release's message and attempting again. Other kinds ignore it.
     * Never blocks; {@code nudge} never blocks either.
     *
     * @return cancels the request (idempotent, never blocks); the loop calls it when the sleep ends
     */
    default Runnable sleepingOnChannel(Runnable nudge) {
        return () -> { };
    }
}
