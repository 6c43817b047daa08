package io.dlock.internal.parts;

import java.time.Clock;
import java.util.function.LongSupplier;

/**
 * The client's one clock, in its two forms: the monotonic one every wait, deadline, lease, validity and timer is
 * counted on, and the wall clock for what is told in wall time (the epoch-ms arguments that Redisson's scripts expect,
 * a lease's end). The only place in the internals that reads {@link System#nanoTime}: everything else is handed
 * {@link #monotonic}. Immutable.
 *
 * @param monotonic the monotonic clock, ns ({@code System::nanoTime} outside tests)
 * @param wall      the wall clock
 */
public record ClientClock(LongSupplier monotonic, Clock wall) {
    /** @return the system's clocks: {@link System#nanoTime} and UTC wall time */
    public static ClientClock system() {
        return new ClientClock(System::nanoTime, Clock.systemUTC());
    }

    /** @return the monotonic clock now, ns */
    public long nanoTime() {
        return monotonic.getAsLong();
    }

    /** @return the wall clock now, ms since the epoch */
    public long epochMillis() {
        return wall.millis();
    }
}
