package io.dlock.cli;

import java.time.Duration;

/**
 * When {@code dlock run} stops its command so that the command has ended before the hold can expire in Redis.
 *
 * <p>With V the instant until which the hold is known valid ({@link io.dlock.DistributedLock#leaseValidFor()}:
 * counted from when the request that last set the TTL was sent, minus the library's clock-drift margin of 1% + 2 ms):
 * <ul>
 *   <li>dlock sends SIGTERM at V − killAfter − margin and SIGKILL at V − margin;</li>
 *   <li>the orphan guard (a separate process, {@link OrphanGuard}) sends SIGTERM half a margin later (so that a
 *       command handling SIGTERM gets it once, from dlock, when dlock is well) and SIGKILL at the same V − margin;
 *       it matters when dlock cannot act (stopped, hung, killed).</li>
 * </ul>
 * The margin, 250 ms + 2% of the lease, covers signal delivery, late wake-ups on a busy host and a GC pause.
 * {@code killAfter} is at most a third of the lease, so a watchdog hold (renewed every third of its lease) never
 * reaches its SIGTERM time while renewals succeed.
 *
 * @param lease     the fixed lease or the watchdog lease
 * @param killAfter the time between SIGTERM and SIGKILL when the lease forces the stop
 */
record StopPlan(Duration lease, Duration killAfter) {
    /** The shortest {@code --lease} / {@code --watchdog}: time for the command to run and then be stopped. */
    static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** {@code --kill-after} when not given, unless a third of the lease is less. */
    static final Duration DEFAULT_KILL_AFTER = Duration.ofSeconds(10);

    /** 250 ms + 2% of the lease. */
    Duration margin() {
        return Duration.ofMillis(250).plus(lease.dividedBy(50));
    }

    /** The longest kill-after this lease allows: a third of it. */
    static Duration maxKillAfter(Duration lease) {
        return lease.dividedBy(3);
    }

    /** @param killAfter {@code --kill-after}, or null when not given */
    static StopPlan of(Duration lease, Duration killAfter) {
        Duration max = maxKillAfter(lease);
        return new StopPlan(lease, killAfter != null ? killAfter
                : DEFAULT_KILL_AFTER.compareTo(max) < 0 ? DEFAULT_KILL_AFTER : max);
    }

    /** ns from a moment where the hold is valid for {@code validForNanos} to dlock's SIGTERM (≤ 0: now). */
    long termInNanos(long validForNanos) {
        return validForNanos - killAfter.toNanos() - margin().toNanos();
    }

    /** ns from a moment where the hold is valid for {@code validForNanos} to dlock's SIGKILL (≤ 0: now). */
    long killInNanos(long validForNanos) {
        return validForNanos - margin().toNanos();
    }
}
