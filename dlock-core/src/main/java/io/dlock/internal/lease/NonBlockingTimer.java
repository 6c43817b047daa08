package io.dlock.internal.lease;

import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's timer: one thread runs each task once, at or after its deadline, in deadline order (ties in the order
 * scheduled).
 *
 * <p><b>Why not a {@code ScheduledThreadPoolExecutor}.</b> Its schedule and (with remove-on-cancel) its cancel take
 * the queue's lock, and may park while the timer thread holds it. dlock schedules and cancels from Lettuce's I/O
 * threads (a pub/sub message cancels a waiter's fallback sleep), which must never block; the reactive API's BlockHound
 * tests saw that park. Here a caller never takes a lock: {@link #schedule} appends to a lock-free queue and at most
 * unparks the timer thread; a cancel is one compare-and-set and two counter increments (and, every
 * {@value #PURGE_EVERY}th time, an unpark).
 *
 * <p><b>Invariants.</b> Only the timer thread touches the deadline heap. A task runs at most once; a cancel that
 * returns before the task started means it never starts (its state moves from pending to running or to cancelled by
 * a single CAS; a cancel does not stop a task already running). The timer thread
 * sleeps until the earliest deadline it knows; a task scheduled earlier than that wakes it. Cancelled tasks are
 * dropped when they come due, when they are taken in from the queue, or all at once when the cancels since the last
 * purge reach {@value #PURGE_EVERY} or half the heap; every {@value #PURGE_EVERY}th cancel also wakes the timer for
 * that, so what it keeps is bounded by recent activity.
 *
 * <p>Thread-safe. {@link #close()} drops the pending tasks; a later {@link #schedule} is refused with
 * {@link RejectedExecutionException}, as an executor that was shut down refuses it.
 */
public final class NonBlockingTimer implements TaskScheduler, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NonBlockingTimer.class);
    static final int PURGE_EVERY = 1024;
    private static final long IDLE_PARK_NANOS = TimeUnit.HOURS.toNanos(1);

    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int CANCELLED = 2;

    private final ConcurrentLinkedQueue<Entry> incoming = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Entry> heap = new PriorityQueue<>();
    /** Every cancel so far: each {@value #PURGE_EVERY}th wakes the timer to drop what was cancelled. */
    private final AtomicLong cancels = new AtomicLong();
    /** Cancels the timer has not purged yet (it subtracts what it saw, so none is lost to a race). */
    private final AtomicLong unpurged = new AtomicLong();
    private final Thread thread;
    private volatile boolean parked;
    private volatile long wakeAt;
    private volatile boolean closed;
    /** The heap's size at the timer thread's last pass (the heap itself is the timer thread's alone). */
    private volatile int heapSize;
    private final AtomicLong order = new AtomicLong();

    /** The client's monotonic clock (ns): the timer's deadlines are on the clock every wait is counted on. */
    private final LongSupplier nanoTime;

    /**
     * Starts the timer thread, made by {@code threads}.
     *
     * @param nanoTime the client's monotonic clock, ns; it must advance at the rate of {@link LockSupport#parkNanos}
     *                 (the real clock outside tests)
     */
    public NonBlockingTimer(ThreadFactory threads, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.thread = threads.newThread(this::loop);
        this.thread.start();
    }

    @Override
    public Runnable schedule(Runnable task, long delayNanos) {
        if (closed) {
            throw new RejectedExecutionException("the dlock timer is closed");
        }
        Entry entry = new Entry(task, nanoTime.getAsLong() + Math.max(0, delayNanos), order.getAndIncrement());
        incoming.add(entry);
        if (parked && entry.deadline - wakeAt < 0) {
            LockSupport.unpark(thread);
        }
        return entry::cancel;
    }

    /** Stops the timer thread; pending tasks never run. Does not wait for a running task. Idempotent. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }

    /**
     * @return the entries the timer still holds (not yet taken in, or in its heap as of its last pass), cancelled ones
     *         included: what memory it keeps
     */
    int retainedForTest() {
        return incoming.size() + heapSize;
    }

    /** @return whether the timer thread has ended within {@code millis} (after {@link #close()}) */
    boolean awaitStoppedForTest(long millis) throws InterruptedException {
        thread.join(millis);
        return !thread.isAlive();
    }

    private void loop() {
        while (!closed) {
            drainIncoming();
            long now = nanoTime.getAsLong();
            runDue(now);
            purgeIfMostlyCancelled();
            heapSize = heap.size();
            Entry first = heap.peek();
            long sleep = first == null ? IDLE_PARK_NANOS : first.deadline - nanoTime.getAsLong();
            if (sleep <= 0) {
                continue;
            }
            wakeAt = nanoTime.getAsLong() + sleep;
            parked = true;
            // a task added before parked was set is seen here; one added after sees parked and unparks if earlier
            if (incoming.isEmpty() && !closed) {
                LockSupport.parkNanos(this, sleep);
            }
            parked = false;
        }
        incoming.clear();
        heap.clear();
    }

    private void drainIncoming() {
        for (Entry entry; (entry = incoming.poll()) != null; ) {
            if (entry.state.get() == PENDING) {
                heap.add(entry);
            }
        }
    }

    private void runDue(long now) {
        for (Entry first; (first = heap.peek()) != null && first.deadline - now <= 0; ) {
            heap.poll();
            if (first.state.compareAndSet(PENDING, RUNNING)) {
                try {
                    first.task.run();
                } catch (Throwable e) {
                    log.warn("a dlock timer task failed", e);
                }
            }
        }
    }

    private void purgeIfMostlyCancelled() {
        long seen = unpurged.get();
        if (seen > 0 && (seen >= PURGE_EVERY || seen * 2 > heap.size())) {
            unpurged.addAndGet(-seen);
            heap.removeIf(entry -> entry.state.get() == CANCELLED);
        }
    }

    private final class Entry implements Comparable<Entry> {
        final Runnable task;
        final long deadline;
        final long seq;
        final AtomicInteger state = new AtomicInteger(PENDING);

        Entry(Runnable task, long deadline, long seq) {
            this.task = task;
            this.deadline = deadline;
            this.seq = seq;
        }

        void cancel() {
            if (state.compareAndSet(PENDING, CANCELLED)) {
                unpurged.incrementAndGet();
                if (cancels.incrementAndGet() % PURGE_EVERY == 0) {
                    LockSupport.unpark(thread);
                }
            }
        }

        @Override
        public int compareTo(Entry other) {
            long byDeadline = deadline - other.deadline;
            return byDeadline != 0 ? Long.signum(byDeadline) : Long.compare(seq, other.seq);
        }
    }
}
