package io.dlock.internal.lock;

import io.dlock.internal.lease.HoldTable.HoldId;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What acquisitions that their callers abandoned (a cancelled async future) still have to clean up, per hold (lock
 * key and owner field), so that the same owner's next acquisition of that hold starts only once it is done.
 *
 * <p>Why: an abandoned acquisition cleans up after its caller has already moved on: it withdraws a fair waiter's place
 * or a waiting writer's mark, drops a hold that an attempt without a reply may have left, or releases a hold it got
 * just as it was cancelled. An owner that cancels and asks again at once would otherwise race its new attempt with
 * that cleanup (its new place in the queue withdrawn, its new count taken down). Acquisitions that end any other way
 * clean up before their result completes ({@link AcquireLoop}), and a sync caller waits for the cleanup of an
 * interrupted wait, so only cancellations are tracked.
 *
 * <p>Invariant: an entry is present only while some cleanup of its hold is pending; it is removed when the last one
 * completes (whether it succeeded or not). Thread-safe; never blocks.
 */
final class AbandonedCleanups {
    private final Map<HoldId, CompletableFuture<?>> pending = new ConcurrentHashMap<>();

    /** Records {@code cleanup}, the end of an abandoned acquisition of {@code field} on {@code key}. */
    void track(String key, String field, CompletableFuture<?> cleanup) {
        if (cleanup.isDone()) {
            return;
        }
        HoldId id = new HoldId(key, field);
        CompletableFuture<?> all = pending.merge(id, cleanup,
                (earlier, later) -> CompletableFuture.allOf(earlier, later));
        all.whenComplete((ok, error) -> pending.remove(id, all));
    }

    /**
     * Runs {@code start} now, or once the cleanups tracked for {@code field} on {@code key} are done (on the thread
     * that completes the last of them).
     */
    void runAfter(String key, String field, Runnable start) {
        runAfter(() -> new HoldId(key, field), start);
    }

    /**
     * As {@link #runAfter(String, String, Runnable)}; {@code hold} is only computed when some cleanup is pending, so
     * the common case (nothing was ever abandoned) costs one emptiness check per acquisition.
     */
    void runAfter(Supplier<HoldId> hold, Runnable start) {
        CompletableFuture<?> before = pending.isEmpty() ? null : pending.get(hold.get());
        if (before == null || before.isDone()) {
            start.run();
        } else {
            before.whenComplete((ok, error) -> start.run());
        }
    }
}
