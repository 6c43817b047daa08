package io.dlock.internal.metrics;

import io.dlock.LeaseLostEvent;
import io.dlock.LockKind;
import io.dlock.internal.lease.Hold;

/**
 * What the locks, the acquire loop, the local hand-off and the lease renewer of one client tell whoever records
 * metrics. Without metrics the client reports to {@link #NONE}, whose methods do nothing and whose
 * {@link #acquireStarted} returns the shared {@link Acquisition#NONE} without allocating; callers compare against it to
 * skip the extra bookkeeping of a metered acquisition altogether.
 *
 * <p>Contract for implementations: every method is called on whatever thread the event happens on (a caller's
 * thread, a Redis I/O thread, the client's timer thread), so it must be thread-safe, must never block and must never
 * throw. A {@link Hold} is only an identity here: the same object from a hold's first acquisition to its end.
 */
public interface LockEvents {

    /** Reports nothing. */
    LockEvents NONE = new LockEvents() {
        @Override
        public Acquisition acquireStarted(LockKind kind, String lockName) {
            return Acquisition.NONE;
        }

        @Override
        public void handedOff(LockKind kind, String lockName, Hold receiverHold) {
        }

        @Override
        public void holdReleased(Hold hold) {
        }

        @Override
        public void holdLost(Hold hold, LeaseLostEvent.Reason reason) {
        }

        @Override
        public void holdDiscarded(Hold hold) {
        }

        @Override
        public void renewalCall(boolean ok) {
        }

        @Override
        public void holdRenewed(Hold hold, boolean ok) {
        }
    };

    /** How an acquisition ended, the value of the {@code outcome} tag. */
    enum Outcome {
        ACQUIRED("acquired"),
        /** Not acquired within its wait (a single {@code tryLock()} that found the lock busy included). */
        TIMED_OUT("timed_out"),
        /** The caller stopped waiting: interrupted, or its future cancelled. */
        INTERRUPTED("interrupted"),
        /** Redis failed, the client closed, or the call was refused (an upgrade of a read hold). */
        FAILED("failed");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    /** One acquisition (one call of {@code lock}, {@code tryLock}, …) from its start to its result. */
    interface Acquisition {
        /** The acquisition of a client without metrics. */
        Acquisition NONE = new Acquisition() {
            @Override
            public void attempted() {
            }

            @Override
            public void granted(Hold hold) {
            }

            @Override
            public void ended(Boolean acquired, Throwable error) {
            }
        };

        /** An attempt is being sent to Redis. */
        void attempted();

        /**
         * Redis granted the lock to this acquisition (a first hold or a re-entry): called before the caller learns
         * of it, so a release that follows at once always finds the hold known.
         */
        void granted(Hold hold);

        /**
         * The acquisition's result: {@code true} acquired, {@code false} out of time, or the error (a
         * {@link java.util.concurrent.CancellationException} when the caller gave up).
         */
        void ended(Boolean acquired, Throwable error);
    }

    /** An acquisition started; the returned object receives the rest of its events. */
    Acquisition acquireStarted(LockKind kind, String lockName);

    /** A releasing owner moved the lock to a waiting owner of this client, whose new hold is {@code receiverHold}. */
    void handedOff(LockKind kind, String lockName, Hold receiverHold);

    /** The owner's last acquisition of {@code hold} was released. */
    void holdReleased(Hold hold);

    /** {@code hold} was lost (reported once; {@link io.dlock.LeaseLostListener}s hear of it too). */
    void holdLost(Hold hold, LeaseLostEvent.Reason reason);

    /** {@code hold} ended otherwise: force-unlocked by this client, found not held, dropped after a failed release. */
    void holdDiscarded(Hold hold);

    /** A renewal call (one script call for a batch of holds) answered ({@code ok}) or failed. */
    void renewalCall(boolean ok);

    /**
     * A renewal call extended {@code hold} ({@code ok}), or failed for it. (A hold that the call found gone is reported
     * through {@link #holdLost} instead.)
     */
    void holdRenewed(Hold hold, boolean ok);
}
