package io.dlock.internal.lock;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The client's two clocks: the monotonic one every wait, lease and validity is counted on, and the wall clock for the
 * epoch-ms arguments that Redisson's scripts expect (fair-lock deadlines). Immutable.
 *
 * @param monotonic the monotonic clock, ns ({@code System::nanoTime} outside tests)
 * @param wall      the wall clock
 */
public record LockClock(LongSupplier monotonic, Clock wall) {
    /** @return the monotonic clock now, ns */
    public long nanoTime() {
        return monotonic.getAsLong();
    }

    /** @return the wall clock now, ms since the epoch */
    public long epochMillis() {
        return wall.millis();
    }
}
