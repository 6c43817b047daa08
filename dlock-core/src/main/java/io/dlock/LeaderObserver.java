package io.dlock;

/**
 * Told who leads an election, for anyone who is not a candidate ({@link LockClient#observeLeader}). Calls come on the
 * client's executor, one at a time and in order for one observer.
 */
@FunctionalInterface
public interface LeaderObserver {

    /**
     * The leader changed: first called with who leads when the observation starts (possibly nobody), then on each
     * change. The epochs of the leaders told never go down and a leader is never told twice. A listener that throws
     * is logged and goes on being told.
     */
    void leaderChanged(LeaderChange change);

    /** An observation started by {@link LockClient#observeLeader}; closing it stops it. */
    interface Subscription extends AutoCloseable {

        /**
         * Stops the observation: unsubscribes (when nothing else of the client listens to the election's channels)
         * and tells the observer nothing more once a call under way has returned. Idempotent, never blocks, never
         * throws.
         */
        @Override
        void close();
    }
}
