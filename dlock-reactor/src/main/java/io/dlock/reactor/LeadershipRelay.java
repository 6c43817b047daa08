package io.dlock.reactor;

import io.dlock.LeaderListener;
import io.dlock.LeaderTerm;
import reactor.core.publisher.FluxSink;

/**
 * A {@link LeaderListener} that hands one subscriber of {@link ReactiveLeaderElection#events()} its events. A
 * subscriber that comes while a term runs is first told of that term ({@link #current}), which races the listener's
 * own calls for it; the relay keeps the subscriber's story whole whichever comes first: an {@code elected} per term at
 * most once and in increasing epochs, a {@code revoked} only after the {@code elected} of its term, and once. Never
 * blocks (a few instructions under the relay's monitor).
 */
final class LeadershipRelay implements LeaderListener {
    private final FluxSink<LeadershipEvent> sink;
    /** Guarded by this: the highest epoch told as elected, and the term told as elected and not yet as revoked. */
    private long toldEpoch = Long.MIN_VALUE;
    private LeaderTerm open;

    LeadershipRelay(FluxSink<LeadershipEvent> sink) {
        this.sink = sink;
    }

    /**
     * Tells a late subscriber of the term held now, unless it has ended. Under the monitor: a revocation after the
     * check queues its {@code revoked} call, which then waits here and finds the term told.
     */
    synchronized void current(LeaderTerm term) {
        if (!term.revocationAsync().isDone()) {
            elected(term);
        }
    }

    @Override
    public synchronized void elected(LeaderTerm term) {
        if (term.epoch() > toldEpoch) {
            toldEpoch = term.epoch();
            open = term;
            sink.next(LeadershipEvent.elected(term));
        }
    }

    @Override
    public synchronized void revoked(LeaderTerm term, LeaderTerm.Cause cause) {
        if (open == term) {
            open = null;
            sink.next(LeadershipEvent.revoked(term, cause));
        }
    }
}
