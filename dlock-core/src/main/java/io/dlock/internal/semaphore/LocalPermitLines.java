package io.dlock.internal.semaphore;

import io.dlock.internal.lease.TaskScheduler;
import io.dlock.internal.wakeup.WakeupHub;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The client's {@link LocalPermits}, one per semaphore in use (plain or leased), keyed by the semaphore's channel: created when an
 * acquisition attempts, removed once idle (no waiter, no permit held by this client). Thread-safe; never blocks.
 */
final class LocalPermitLines {
    /** A refused attempt's note of where its semaphore's messages stood when it was sent ({@link LocalPermits#queue}). */
    record Mark(LocalPermits permits, long messages) {
    }

    private final ConcurrentHashMap<String, LocalPermits> byChannel = new ConcurrentHashMap<>();
    private final TaskScheduler scheduler;
    private final LongSupplier nanoTime;
    private final long recheckNanos;
    private final int maxHandoffs;
    private final long headStartNanos;

    /**
     * @param recheckNanos   the longest a waiter stays in line before it asks Redis again
     * @param maxHandoffs    the most releases in a row handed on within the client (0: none, every release goes to
     *                       Redis)
     * @param headStartNanos how long the client's acquisitions hold back after a capped release that woke other
     *                       clients' waiters ({@link io.dlock.internal.acquire.HeadStart#OTHER_CLIENTS_NANOS})
     */
    LocalPermitLines(TaskScheduler scheduler, LongSupplier nanoTime, long recheckNanos, int maxHandoffs,
                     long headStartNanos) {
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
        this.recheckNanos = recheckNanos;
        this.maxHandoffs = maxHandoffs;
        this.headStartNanos = headStartNanos;
    }

    /** @return whether releases may be handed on at all (a cap above 0) */
    boolean enabled() {
        return maxHandoffs > 0;
    }

    /** @return the note an attempt on {@code channel} takes as it is sent, or null when hand-offs are off */
    Mark mark(String channel) {
        if (!enabled()) {
            return null;
        }
        LocalPermits permits = byChannel.computeIfAbsent(channel, this::create);
        Mark mark = new Mark(permits, permits.messages());
        // retires it later if this attempt's acquisition ends without using it: every path that leaves a line idle
        // either passes here again (its waiters attempt) or tidies itself (a release, a give-back, a caller leaving)
        tidy(channel, permits);
        return mark;
    }

    /** This client's acquisition took {@code permits} on {@code channel} from Redis. */
    void granted(String channel, int permits) {
        if (!enabled()) {
            return;
        }
        while (true) {
            LocalPermits line = byChannel.computeIfAbsent(channel, this::create);
            if (line.granted(permits)) {
                return;
            }
            byChannel.remove(channel, line);
        }
    }

    /** A grant of {@code permits} on {@code channel} from Redis went back to Redis. */
    void forget(String channel, int permits) {
        LocalPermits line = byChannel.get(channel);
        if (line != null) {
            line.forget(permits);
            tidy(channel, line);
        }
    }

    /**
     * This client releases {@code permits} on {@code channel}: {@link LocalPermits#reserve}.
     *
     * @return the reservation, with nobody served and every permit left when nobody of this client holds or waits
     */
    LocalPermits.Reservation reserve(String channel, int permits) {
        while (true) {
            LocalPermits line = byChannel.get(channel);
            if (line == null) {
                return LocalPermits.Reservation.none(permits);
            }
            LocalPermits.Reservation reservation = line.reserve(permits);
            if (reservation != null) {
                tidy(channel, line);
                return reservation;
            }
            byChannel.remove(channel, line);
        }
    }

    /** A message arrived on {@code channel} (any channel: those of no semaphore in use here are ignored). */
    void message(String channel, String message) {
        LocalPermits line = byChannel.get(channel);
        if (line != null) {
            line.messageArrived(WakeupHub.permitCount(message));
        }
    }

    /** The subscriptions were re-established, and messages may have been lost meanwhile: every waiter asks Redis. */
    void resubscribed() {
        byChannel.values().forEach(LocalPermits::resubscribed);
    }

    /**
     * Retires {@code line} and removes it once idle: at once if it has been unused for the recheck interval, else
     * from a timer that asks again then.
     */
    void tidy(String channel, LocalPermits line) {
        LocalPermits.Idle idle = line.retireIfIdle();
        if (idle == LocalPermits.Idle.RETIRED) {
            byChannel.remove(channel, line);
        } else if (idle == LocalPermits.Idle.RECENTLY && line.scheduleTidy()) {
            scheduler.schedule(() -> {
                line.tidyRan();
                tidy(channel, line);
            }, line.recheckNanos());
        }
    }

    /** @return the line of {@code channel}, or null (tests) */
    LocalPermits find(String channel) {
        return byChannel.get(channel);
    }

    private LocalPermits create(String channel) {
        return new LocalPermits(scheduler, nanoTime, recheckNanos, maxHandoffs, headStartNanos);
    }
}
