package io.dlock.internal.acquire;

import io.dlock.internal.Errors;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Blocking waits on futures for the synchronous API: rethrows the future's failure unwrapped, and parks with
 * {@link CompletableFuture#get()} (virtual threads are not pinned).
 *
 * <h2>Spin before parking</h2>
 * A round trip to Redis on loopback or in one data centre takes tens of microseconds; parking the caller and waking
 * it again (a futex call and a context switch on each side) costs about as much again, and is most of a
 * single-threaded caller's latency. So a caller that is the <em>only</em> thread of the JVM blocked in a dlock call
 * busy-waits for up to {@code spinNanos} before it parks. The rule bounds the cost: at most one thread per JVM spins
 * at any time, it stops as soon as a second thread blocks (then CPU is better spent on the event loop and on Redis),
 * it never spins longer than the budget per call, and it never spins on a single-CPU machine.
 */
public final class SyncWaits {
    /** Threads of this JVM blocked in a dlock call right now, across clients: CPU is shared by all of them. */
    private static final AtomicInteger BLOCKED = new AtomicInteger();
    private static final boolean MULTI_CORE = Runtime.getRuntime().availableProcessors() > 1;

    private final long spinNanos;
    /** The client's monotonic clock (ns), which bounds the spin. */
    private final LongSupplier nanoTime;

    /**
     * @param spinNanos the busy-wait budget per call (0 = never spin)
     * @param nanoTime  the client's monotonic clock, ns
     */
    public SyncWaits(long spinNanos, LongSupplier nanoTime) {
        this.spinNanos = MULTI_CORE ? Math.max(0, spinNanos) : 0;
        this.nanoTime = nanoTime;
    }

    /**
     * @return these waits without the spin: for an object whose blocked callers usually wait for another party (a
     *         latch's awaiters for its count-downs) and whose one-round-trip calls run beside those parties, so that
     *         a core spent spinning is one that the parties and Redis need (measured: bench S11, 0.6x with the spin)
     */
    public SyncWaits neverSpinning() {
        return spinNanos == 0 ? this : new SyncWaits(0, nanoTime);
    }

    /** Waits, ignoring interrupts until done, then restores the interrupt flag; rethrows the failure unwrapped. */
    public <T> T awaitUninterruptibly(CompletableFuture<T> future) {
        return awaitUninterruptibly(future, true);
    }

    /**
     * {@link #awaitUninterruptibly(CompletableFuture)} for a single attempt without wait ({@code tryLock()},
     * {@code tryAcquire()}): it never spins. Such a call is the polling form, whose calls mostly answer "busy" to a
     * caller that goes on with other work; a spin there costs a core for the whole round trip of every "no" (measured:
     * bench S8, the spin was most of the client's CPU per failed attempt, 1.45x Redisson's) to save a caller who asked
     * not to wait the wake-up of one park.
     */
    public <T> T awaitSingleAttempt(CompletableFuture<T> future) {
        return awaitUninterruptibly(future, false);
    }

    private <T> T awaitUninterruptibly(CompletableFuture<T> future, boolean maySpin) {
        boolean interrupted = false;
        BLOCKED.incrementAndGet();
        try {
            if (maySpin) {
                spin(future);
            }
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e);
                }
            }
        } finally {
            BLOCKED.decrementAndGet();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@link #awaitUninterruptibly(CompletableFuture)} for a call on a named object: a failure is mapped by the one
     * error mapper ({@link Errors#toApi(Throwable, String, String, String)}).
     */
    public <T> T awaitUninterruptibly(CompletableFuture<T> future, String kind, String name, String operation) {
        return awaitUninterruptibly(mapped(future, kind, name, operation));
    }

    /**
     * {@code future} with its failure mapped by the one error mapper, on the failure itself (a checked cause such as
     * a {@code SocketException} becomes a {@link io.dlock.LockException} naming the object, never a wrapper).
     */
    public static <T> CompletableFuture<T> mapped(CompletableFuture<T> future, String kind, String name,
                                                 String operation) {
        return future.handle((value, error) -> {
            if (error != null) {
                throw new java.util.concurrent.CompletionException(Errors.toApi(error, kind, name, operation));
            }
            return value;
        });
    }

    /**
     * The interrupt rule of every kind's interruptible acquisition: waits for the acquisition's result; on an interrupt
     * abandons the acquisition, waits (uninterruptibly) until nothing of it is left in Redis, and throws
     * {@link InterruptedException} with the flag cleared. A grant that raced the interrupt is given back too: the
     * caller that sees the exception holds nothing ({@code Lock.lockInterruptibly}'s contract; the semaphores follow
     * it, so that an interrupted caller never has to ask whether it holds permits).
     *
     * @param abandon abandons the acquisition; its future completes when nothing of it is left in Redis
     */
    public <T> T awaitOrAbandon(CompletableFuture<T> result, Supplier<CompletableFuture<?>> abandon)
            throws InterruptedException {
        try {
            return await(result);
        } catch (InterruptedException e) {
            awaitUninterruptibly(abandon.get());
            Thread.interrupted();
            throw e;
        }
    }

    /** Waits; on interrupt throws {@link InterruptedException} (the caller cleans up first). */
    public <T> T await(CompletableFuture<T> future) throws InterruptedException {
        BLOCKED.incrementAndGet();
        try {
            spin(future);
            return future.get();
        } catch (ExecutionException e) {
            throw rethrow(e);
        } finally {
            BLOCKED.decrementAndGet();
        }
    }

    /** Busy-waits while this is the JVM's only blocked caller, the future is pending and the budget lasts. */
    private void spin(CompletableFuture<?> future) {
        if (spinNanos == 0 || BLOCKED.get() != 1) {
            return;
        }
        long end = nanoTime.getAsLong() + spinNanos;
        while (!future.isDone() && BLOCKED.get() == 1 && nanoTime.getAsLong() - end < 0) {
            Thread.onSpinWait();
        }
    }

    private static RuntimeException rethrow(ExecutionException e) {
        Throwable cause = Errors.unwrap(e);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
