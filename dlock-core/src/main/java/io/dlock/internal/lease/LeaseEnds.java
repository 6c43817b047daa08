package io.dlock.internal.lease;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.LongSupplier;

/**
 * The rule for a fixed lease's end, one for every grant with a lease of its own (a lock hold taken or extended with a
 * lease, a leased permit taken with one): the grant is reported lost when its known validity ends, that is when its
 * {@code leaseValidFor()} reaches zero — the lease counted on the client's monotonic clock from when the granting
 * request was sent, less the drift margin. Not sooner (until then Redis keeps the grant, unless another client removed
 * it, which the renewal rounds' read-back finds) and not later than the timer's lateness: an owner that still
 * believes in its hold is told before another client can be granted it, rather than at the next renewal round.
 *
 * <p>Each watched grant has at most one alarm, set at its known end. Whoever changes a grant's validity, or makes it a
 * fixed-lease one, calls {@link #watch} again: an end sooner than the alarm moves the alarm forward; a later end is
 * found when the alarm goes off (it finds validity left and sets itself again). An alarm that finds the grant no longer
 * counting down (released, a release in flight, lost, renewed by the watchdog) ends quietly; {@link #forget} drops it
 * at once. Watchdog grants are not watched here: their end is the renewal rounds' to judge ({@link LeaseRenewer}).
 *
 * <p>Thread-safe, non-blocking; alarms go off on the timer's thread.
 */
public final class LeaseEnds {
    private static final Logger log = LoggerFactory.getLogger(LeaseEnds.class);

    /** A grant whose fixed lease this rule watches. Implementations guard their own state. */
    public interface FixedLease {
        /**
         * @return whether the grant's fixed lease is counting down: granted, not renewed by the watchdog, no release
         *         in flight, not lost
         */
        boolean fixedLeaseRunning();

        /** @return ns of known validity left at {@code nowNanos} (until {@code leaseValidFor()} ends); ≤ 0: none */
        long validForNanos(long nowNanos);
    }

    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<FixedLease, Alarm> alarms = new ConcurrentHashMap<>();

    public LeaseEnds(TaskScheduler scheduler, LongSupplier nanoTime) {
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
    }

    /**
     * Makes sure {@code lease} is reported through {@code ranOut} when its known validity ends, if its fixed lease is
     * counting down now; call after every change that may start it or bring its end sooner. {@code ranOut} runs on
     * the timer's thread (or the caller's, when the end has passed already), once per alarm; it must report at most
     * once itself (a grant may be found run out by other means too).
     */
    public void watch(FixedLease lease, Runnable ranOut) {
        if (!lease.fixedLeaseRunning()) {
            return;
        }
        long now = nanoTime.getAsLong();
        long left = lease.validForNanos(now);
        if (left <= 0) {
            forget(lease);
            ranOut.run();
            return;
        }
        Alarm alarm = new Alarm(lease, ranOut, now + left);
        Alarm[] replaced = new Alarm[1];
        Alarm kept = alarms.compute(lease, (k, old) -> {
            if (old != null && old.atNanos - alarm.atNanos <= 0) {
                return old; // goes off no later: it sets itself again if validity is left then
            }
            replaced[0] = old;
            return alarm;
        });
        if (kept != alarm) {
            return;
        }
        if (replaced[0] != null) {
            replaced[0].cancel();
        }
        alarm.set(left);
    }

    /** Drops {@code lease}'s alarm, if any (it was released or lost). */
    public void forget(FixedLease lease) {
        Alarm alarm = alarms.remove(lease);
        if (alarm != null) {
            alarm.cancel();
        }
    }

    /** @return alarms set (tests: released grants must not leave any) */
    public int watched() {
        return alarms.size();
    }

    /** One alarm: goes off at {@code atNanos}; guarded by {@code this}. */
    private final class Alarm implements Runnable {
        final FixedLease lease;
        final Runnable ranOut;
        final long atNanos;
        private Runnable cancel;
        private boolean cancelled;

        Alarm(FixedLease lease, Runnable ranOut, long atNanos) {
            this.lease = lease;
            this.ranOut = ranOut;
            this.atNanos = atNanos;
        }

        void set(long delayNanos) {
            Runnable cancelTask;
            try {
                cancelTask = scheduler.schedule(this, delayNanos);
            } catch (RejectedExecutionException e) {
                alarms.remove(lease, this);
                log.debug("timer closed; the end of {} is not watched (the client is closing)", lease);
                return;
            }
            boolean cancelNow;
            synchronized (this) {
                cancel = cancelTask;
                cancelNow = cancelled;
            }
            if (cancelNow) {
                cancelTask.run();
            }
        }

        void cancel() {
            Runnable cancelTask;
            synchronized (this) {
                cancelled = true;
                cancelTask = cancel;
            }
            if (cancelTask != null) {
                cancelTask.run();
            }
        }

        @Override
        public void run() {
            if (alarms.remove(lease, this)) {
                watch(lease, ranOut); // reports it if its validity ended, else sets the alarm at its new end
            }
        }
    }
}
