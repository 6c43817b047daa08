package io.dlock.chaos;

import io.dlock.LockEventListener;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A worker client's local hand-offs per workload (a releasing owner handed the lock straight to a waiting owner of the
 * same client), counted from the client's own lock events ({@link LockEventListener#handedOff}, the event dlock's
 * {@code dlock.handoffs} meter counts). Worker side only: the checking side reads the counts back with
 * {@link HandoffCounts}.
 */
final class HandoffListener implements LockEventListener {
    private final AtomicLongArray counts = new AtomicLongArray(Workload.values().length);

    /** Called on the thread of the hand-off: counts it, never blocks. */
    @Override
    public void handedOff(Hold receiver) {
        counts.incrementAndGet(Workload.of(receiver.kind(), receiver.lockName()).ordinal());
    }

    /** @return the counts so far, as {@link HandoffCounts#format} writes them */
    String detail() {
        Map<Workload, Long> byWorkload = new EnumMap<>(Workload.class);
        for (Workload workload : Workload.values()) {
            byWorkload.put(workload, counts.get(workload.ordinal()));
        }
        return HandoffCounts.format(byWorkload);
    }
}
