package io.dlock.internal.metrics;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The one place a client's {@link LockEvents} recipient lives: {@link LockEvents#NONE} until metrics are attached.
 * Reporting an event costs one volatile read.
 *
 * <p>One recipient at a time: a client is metered by one {@code LockMetrics}, which may feed several registries.
 */
public final class EventSink {
    private final AtomicReference<LockEvents> current = new AtomicReference<>(LockEvents.NONE);

    /** @return the current recipient, {@link LockEvents#NONE} when nobody listens */
    public LockEvents get() {
        return current.get();
    }

    /**
     * Makes {@code events} the recipient.
     *
     * @throws IllegalStateException when another recipient is attached
     */
    public void attach(LockEvents events) {
        if (!current.compareAndSet(LockEvents.NONE, events)) {
            throw new IllegalStateException("this lock client already has metrics attached (one LockMetrics per"
                    + " client, or LockClientConfig.meterRegistry): bind that LockMetrics to further registries, or"
                    + " close it first");
        }
    }

    /** Stops reporting to {@code events} if it is the recipient; no effect otherwise. */
    public void detach(LockEvents events) {
        current.compareAndSet(events, LockEvents.NONE);
    }
}
