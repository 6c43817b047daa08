package io.dlock.bench;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The safety check of the semaphore scenarios: how many threads are inside at once. A thread entering when
 * {@code capacity} are already inside is a violation, so the check fails as soon as the semaphore lets one more in.
 */
final class Occupancy {
    private final int capacity;
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger violations = new AtomicInteger();
    private final AtomicInteger most = new AtomicInteger();

    Occupancy(int capacity) {
        this.capacity = capacity;
    }

    /** One pass through the guarded section: enter, note the occupancy, leave. */
    void pass() {
        int now = inside.incrementAndGet();
        if (now > capacity) {
            violations.incrementAndGet();
        }
        most.accumulateAndGet(now, Math::max);
        inside.decrementAndGet();
    }

    /** @return "ok", or how often more than {@code capacity} were inside */
    String verdict() {
        return violations.get() == 0 ? "ok"
                : "OVER " + capacity + " INSIDE x" + violations.get() + " (most " + most.get() + ")";
    }
}
