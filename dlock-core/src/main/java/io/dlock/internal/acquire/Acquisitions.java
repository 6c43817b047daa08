package io.dlock.internal.acquire;

import io.dlock.LockException;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The close rule, written once for every kind (locks, semaphores, latches, multi-locks): one registry per client of
 * everything in flight that may still take or give back something in Redis — waiting acquisitions
 * ({@link AcquireLoop}), waits ({@link Waiter}: a latch's await) and stray cleanups (a grant given back after its caller left). {@link #close} fails every
 * waiting acquisition and completes when each has cleaned up after itself (a grant that its in-flight attempt brings
 * is given back, an unanswered attempt's possible take is dropped), so the client closes its connections only after
 * those commands went out and were answered. Later calls fail at once ({@link #checkOpen}).
 *
 * <p>Also holds how every kind's loops wait ({@link #waiting}) and how sync calls block ({@link #waits}).
 * Thread-safe.
 */
public final class Acquisitions {
    private final LoopWaiting waiting;
    private final SyncWaits waits;
    private final Executor callbacks;
    private final Set<Waiter> loops = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> cleanups = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** @param callbacks the client's executor, where user-facing futures complete (never an I/O thread) */
    public Acquisitions(LoopWaiting waiting, SyncWaits waits, Executor callbacks) {
        this.waiting = waiting;
        this.waits = waits;
        this.callbacks = callbacks;
    }

    /** @return the client's executor, where user-facing futures complete and user callbacks run */
    public Executor executor() {
        return callbacks;
    }

    /** @return how loops wait: wake-ups, the monotonic clock, the longest sleep, the pacing of retries in outages */
    public LoopWaiting waiting() {
        return waiting;
    }

    /** @return how the sync API blocks */
    public SyncWaits waits() {
        return waits;
    }

    /** @return the client's monotonic clock (ns) */
    public long nanoTime() {
        return waiting.nanoTime().getAsLong();
    }

    /**
     * Registers a waiter (a loop, a latch's await) until it has {@linkplain Waiter#finished() finished}; one
     * registered after close is failed at once.
     */
    public void register(Waiter loop) {
        loops.add(loop);
        loop.finished().whenComplete((ok, error) -> loops.remove(loop));
        if (closed) {
            loop.fail(closedError(loop.kind(), loop.name(), "the lock client is closed"));
        }
    }

    /** Keeps {@code cleanup} (a give-back sent outside a loop) until it completes, so that close waits for it. */
    public void track(CompletableFuture<?> cleanup) {
        cleanups.add(cleanup);
        cleanup.whenComplete((ok, error) -> cleanups.remove(cleanup));
    }

    /** @throws LockException naming the object when the client is closed */
    public void checkOpen(String kind, String name) {
        if (closed) {
            throw closedError(kind, name, "the lock client is closed");
        }
    }

    /** @return whether {@link #close} was called */
    public boolean isClosed() {
        return closed;
    }

    private static LockException closedError(String kind, String name, String what) {
        return new LockException(name, kind + " '" + name + "': " + what, null);
    }

    /**
     * Fails every waiting acquisition; later calls fail at once. Idempotent.
     *
     * @return completes when every failed acquisition and every tracked cleanup has ended (its commands answered or
     *         failed)
     */
    public CompletableFuture<Void> close() {
        closed = true;
        List<CompletableFuture<?>> ends = new ArrayList<>(cleanups);
        for (Waiter loop : loops) {
            loop.fail(closedError(loop.kind(), loop.name(), "the lock client closed while waiting"));
            ends.add(loop.finished());
        }
        ends.addAll(cleanups);
        return CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0]));
    }

    /** @return acquisitions waiting or attempting now */
    public int waitingCount() {
        return loops.size();
    }
}
