package io.dlock.internal.semaphore;

/**
 * What a leased-semaphore acquisition waiting in line ({@link LocalPermits}) brings for a release that hands it a
 * permit ({@code pes_hand_on}): the id its permit will have, fresh for this place in line (never sent before, so no
 * release by id can name it yet), and its lease. The release notes when it sends its call, which starts the new
 * permit's validity as an attempt's send time starts a granted permit's. Written by the one release that reserved
 * the waiter before its call is sent, read once that call is answered.
 */
final class PermitTicket {
    private final String id;
    private final long leaseMs;
    private volatile long sentAtNanos;

    /**
     * @param id      32 lower-case hex digits ({@link PermitIds#fresh})
     * @param leaseMs the lease the permit gets in Redis (the watchdog timeout for a renewed permit)
     */
    PermitTicket(String id, long leaseMs) {
        this.id = id;
        this.leaseMs = leaseMs;
    }

    String id() {
        return id;
    }

    long leaseMs() {
        return leaseMs;
    }

    /** The release's call is sent now ({@code nowNanos}): the permit's validity counts from there. */
    void sending(long nowNanos) {
        sentAtNanos = nowNanos;
    }

    /** @return when the release's call was sent ({@link #sending}) */
    long sentAtNanos() {
        return sentAtNanos;
    }
}
