package io.dlock.internal.acquire;

import java.util.concurrent.CompletableFuture;

/**
 * Something in flight that {@link Acquisitions#close} must end and wait for: an acquisition ({@link AcquireLoop}) or a
 * wait that takes nothing (a latch's await).
 */
public interface Waiter {
    /** @return the kind of object, as errors name it ("lock", "semaphore", "count-down latch", …) */
    String kind();

    /** @return the object's name */
    String name();

    /** Ends the wait with {@code error} (the client is closing); nothing when it ended already. */
    void fail(RuntimeException error);

    /** @return completes when the wait has ended and left nothing in Redis */
    CompletableFuture<Void> finished();
}
