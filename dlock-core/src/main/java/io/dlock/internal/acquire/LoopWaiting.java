package io.dlock.internal.acquire;

import io.dlock.internal.wakeup.WakeupHub;

import java.util.function.LongSupplier;

/**
 * How a client's loops wait: one per client ({@link Acquisitions}), for every kind.
 *
 * @param hub             the wake-ups
 * @param nanoTime        the monotonic clock of deadlines
 * @param fallbackSleepMs the longest sleep when the lock has no TTL to bound it
 * @param outage          paces the retries of a loop without deadline while Redis is unavailable
 */
public record LoopWaiting(WakeupHub hub, LongSupplier nanoTime, long fallbackSleepMs, Outage outage) {
}
