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
}
