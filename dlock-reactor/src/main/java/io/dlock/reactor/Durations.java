package io.dlock.reactor;

import io.dlock.DistributedLock;

import java.time.Duration;

/** Waits given as {@link Duration}s, in the millisecond form of the core's async methods. Stateless. */
final class Durations {
    private Durations() {
    }

    /**
     * @param wait a checked, non-negative wait
     * @return it in ms, or {@link DistributedLock#WAIT_FOREVER} when it is longer than
     *         {@link DistributedLock#MAX_LEASE} (the core's rule: no limit)
     */
    static long millis(Duration wait) {
        return wait.compareTo(DistributedLock.MAX_LEASE) > 0 ? DistributedLock.WAIT_FOREVER : wait.toMillis();
    }
}
