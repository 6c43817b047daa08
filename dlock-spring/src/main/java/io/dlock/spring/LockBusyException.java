package io.dlock.spring;

import java.time.Duration;

/**
 * A {@link DistributedLocked} method with {@link WhenBusy#THROW} did not run: its lock was still held by someone else
 * when the wait time ran out, or the waiting thread was interrupted (then the cause is the
 * {@link InterruptedException} and the thread's interrupt flag is set again, whatever {@link WhenBusy} says). The
 * message names the lock, the method and the wait.
 */
public class LockBusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final Duration waitTime;

    /**
     * @param lockName the evaluated lock name
     * @param waitTime how long the call waited ({@link Duration#ZERO}: one attempt; {@code null}: no limit)
     * @param message  the full message
     */
    public LockBusyException(String lockName, Duration waitTime, String message) {
        super(message);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /** As {@link #LockBusyException(String, Duration, String)}, with the cause (an {@link InterruptedException}). */
    public LockBusyException(String lockName, Duration waitTime, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /** @return the evaluated name of the busy lock */
    public String getLockName() {
        return lockName;
    }

    /** @return how long the call waited before giving up ({@link Duration#ZERO}: a single attempt) */
    public Duration getWaitTime() {
        return waitTime;
    }
}
