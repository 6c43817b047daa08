package io.dlock.internal.acquire;

import io.dlock.LockException;
import io.dlock.internal.events.EventSink;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The close rule, written once for every kind (locks, semaphores, latches, multi-locks): one registry per client of
 * everything in flight that may still take or give back something in Redis — waiting acquisitions
 * ({@link AcquireLoop}), waits ({@link Waiter}: a latch's await) and stray cleanups (a grant given back after its caller left). {@link #close} fails every
 * waiting acquisition and completes when each has cleaned up after itself (a grant that its in-flight attempt brings
 * is given back, an unanswered attempt's possible take is dropped), so the client closes its connections only after
 * those commands went out and were answered. Later calls fail at once ({@link #checkOpen}).
 *
 * <p>The front door: every acquisition and wait of every kind starts with {@link #begin}, which checks the client is
 * open, stamps the start on the client's one clock, reports the start to the event listeners, and returns the
 * {@link Admission} that registers it for close and reports its end once. The client's one closed flag is here.
 *
 * <p>Also holds how every kind's loops wait ({@link #waiting}) and how sync calls block ({@link #waits}).
 * Thread-safe.
 */
public final class Acquisitions {
    private final LoopWaiting waiting;
    private final SyncWaits waits;
    private final Executor callbacks;
    private final EventSink events;
    private final Set<Waiter> loops = ConcurrentHashMap.newKeySet();
    private final Set<CompletableFuture<?>> cleanups = ConcurrentHashMap.newKeySet();
    /** The client's one closed flag. */
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param callbacks the client's executor, where user-facing futures complete (never an I/O thread)
     * @param events    the client's event listeners, told of every start and end
     */
    public Acquisitions(LoopWaiting waiting, SyncWaits waits, Executor callbacks, EventSink events) {
        this.waiting = waiting;
        this.waits = waits;
        this.callbacks = callbacks;
        this.events = events;
    }

    /**
     * The front door: starts an acquisition or a wait of {@code subject}, {@code waitNanos} long.
     *
     * @param waitNanos 0 for one attempt, {@link io.dlock.DistributedLock#WAIT_FOREVER}, or a wait in ns
     * @return the admission: deadline, followed attempts, and {@link Admission#enter}
     * @throws LockException naming the object when the client is closed
     */
    public Admission begin(Subject subject, long waitNanos) {
        checkOpen(subject.kind(), subject.name());
        return new Admission(this, events, subject, waitNanos);
    }

    /** @return the client's event listeners */
    public EventSink events() {
        return events;
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
    void register(Waiter loop) {
        loops.add(loop);
        loop.finished().whenComplete((ok, error) -> loops.remove(loop));
        if (closed.get()) {
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
        if (closed.get()) {
            throw closedError(kind, name, "the lock client is closed");
        }
    }

    /** @return whether {@link #close} was called */
    public boolean isClosed() {
        return closed.get();
    }

    private static LockException closedError(String kind, String name, String what) {
        return new LockException(name, kind + " '" + name + "': " + what, null);
    }

    /**
     * Closes the front door: every later {@link #begin} and {@link #checkOpen} fails. The client's one closed flag.
     *
     * @return true for the call that closed it, false when it was closed already
     */
    public boolean closeDoor() {
        return closed.compareAndSet(false, true);
    }

    /**
     * Closes the door ({@link #closeDoor}) and fails every waiting acquisition. Idempotent.
     *
     * @return completes when every failed acquisition and every tracked cleanup has ended (its commands answered or
     *         failed)
     */
    public CompletableFuture<Void> close() {
        closeDoor();
        List<CompletableFuture<?>> ends = new ArrayList<>(cleanups);
        for (Waiter loop : loops) {
            loop.fail(closedError(loop.kind(), loop.name(), "the lock client closed while waiting"));
            ends.add(loop.finished());
        }
        ends.addAll(cleanups);
        return CompletableFuture.allOf(ends.toArray(new CompletableFuture<?>[0]));
    }

    /** @return acquisitions waiting or attempting now, of every kind */
    public int waitingCount() {
        return loops.size();
    }

    /** @return acquisitions waiting or attempting now whose kind ({@link Waiter#kind()}, as errors name it) passes */
    public int waitingCount(java.util.function.Predicate<String> kind) {
        return (int) loops.stream().filter(loop -> kind.test(loop.kind())).count();
    }
}
