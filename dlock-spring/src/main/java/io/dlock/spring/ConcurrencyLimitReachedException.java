package io.dlock.spring;

import java.time.Duration;

/**
 * A {@link DistributedConcurrencyLimit} method with {@link WhenBusy#THROW} did not run: all the semaphore's permits
 * were still taken when the wait time ran out, or the waiting thread was interrupted (then the cause is the
 * {@link InterruptedException} and the interrupt flag is set again). A {@link LockBusyException}, so that a handler of
 * busy locks (an HTTP 409 or 429, a retry) handles it too; {@link #getLockName()} is the semaphore's name.
 */
public class ConcurrencyLimitReachedException extends LockBusyException {
    private static final long serialVersionUID = 1L;

    private final int permits;

    /**
     * @param semaphoreName the evaluated semaphore name
     * @param permits       the limit the method declares
     * @param waitTime      how long the call waited ({@link Duration#ZERO}: one attempt; {@code null}: no limit)
     * @param message       the full message
     * @param cause         an {@link InterruptedException}, or null
     */
    public ConcurrencyLimitReachedException(String semaphoreName, int permits, Duration waitTime, String message,
                                            Throwable cause) {
        super(semaphoreName, waitTime, message, cause);
        this.permits = permits;
    }

    /** @return the number of calls the method allows at once */
    public int getPermits() {
        return permits;
    }
}
