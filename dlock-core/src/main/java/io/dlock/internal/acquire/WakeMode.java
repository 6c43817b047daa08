package io.dlock.internal.acquire;

/**
 * How a message on an object's channel wakes this client's waiters on it ({@link io.dlock.internal.wakeup.WakeupHub}).
 */
public enum WakeMode {
    /** One waiter per message: the message frees one place (an exclusive lock's unlock). */
    ONE,
    /** Every waiter: the message may free places for all of them (a read-write lock, a multi-lock's members). */
    ALL,
    /** A message {@code n > 0} wakes up to {@code n} waiters: it says how many permits are available now. */
    COUNTING
}
