package io.dlock.internal.acquire;

import java.util.concurrent.CompletableFuture;

/**
 * A place of one owner behind another owner of the same client that holds the object ({@link LocalGate}):
 * the kind that queues locally decides how the place ends; the loop only reads how it ended.
 */
public interface LocalTurn {
    /** How a local wait ends. */
    enum Turn {
        /** The object was handed to this waiter's owner (already recorded as held): Redis was not asked. */
        HANDED_OVER,
        /** The waiter should attempt in Redis (holder gone, time up, caller gone, hand-off failed). */
        ATTEMPT_IN_REDIS
    }

    /** @return completes exactly once, when the place ends */
    CompletableFuture<Turn> turn();
}
