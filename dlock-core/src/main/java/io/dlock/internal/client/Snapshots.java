package io.dlock.internal.client;

import io.dlock.LatchInfo;
import io.dlock.LockException;
import io.dlock.LockInfo;
import io.dlock.SemaphoreInfo;
import io.dlock.internal.Errors;
import io.dlock.internal.LockNames;
import io.dlock.internal.acquire.Callers;
import io.dlock.internal.acquire.SyncWaits;
import io.dlock.internal.latch.LatchServices;
import io.dlock.internal.semaphore.SemaphoreInspector;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The read-only snapshots a client answers ({@code LockClient.inspect…}): of a lock, a semaphore and a count-down
 * latch. Sync forms wait uninterruptibly for their one round trip; async forms complete on the client's executor.
 * Thread-safe.
 */
final class Snapshots {
    private final LockInspector inspector;
    private final SemaphoreInspector semaphoreInspector;
    private final LatchServices latches;
    private final Executor executor;
    private final SyncWaits waits;
    private final Runnable checkOpen;
    private final BooleanSupplier closed;
    private final Consumer<String> checkSlots;

    /**
     * @param checkOpen  throws when the client is closed
     * @param closed     whether the client is closed
     * @param checkSlots refuses a name whose keys would hash to different Cluster slots
     */
    Snapshots(LockInspector inspector, SemaphoreInspector semaphoreInspector, LatchServices latches,
              Executor executor, SyncWaits waits, Runnable checkOpen, BooleanSupplier closed,
              Consumer<String> checkSlots) {
        this.inspector = inspector;
        this.semaphoreInspector = semaphoreInspector;
        this.latches = latches;
        this.executor = executor;
        this.waits = waits;
        this.checkOpen = checkOpen;
        this.closed = closed;
        this.checkSlots = checkSlots;
    }

    LockInfo inspect(String name) {
        LockNames.requireValid(name);
        checkOpen.run();
        try {
            return inspector.inspect(name).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException(name, "lock '" + name + "': inspect interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.toApi(e, name, "inspect");
        }
    }

    CompletableFuture<LockInfo> inspectAsync(String name) {
        LockNames.requireValid(name);
        if (closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new LockException("the lock client is closed"));
        }
        CompletableFuture<LockInfo> reply;
        try {
            reply = inspector.inspect(name);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<LockInfo> result = new CompletableFuture<>();
        reply.whenCompleteAsync((info, error) -> {
            if (error != null) {
                result.completeExceptionally(Errors.toApi(error, name, "inspect"));
            } else {
                result.complete(info);
            }
        }, executor);
        return result;
    }

    SemaphoreInfo inspectSemaphore(String name) {
        return awaitSnapshot(inspectSemaphoreAsync(name), name, "semaphore");
    }

    CompletableFuture<SemaphoreInfo> inspectSemaphoreAsync(String name) {
        LockNames.requireValid(name);
        checkSlots.accept(name);
        if (closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new LockException(name, "semaphore '" + name
                    + "': the lock client is closed", null));
        }
        return onExecutor(semaphoreInspector.inspect(name));
    }

    LatchInfo inspectCountDownLatch(String name) {
        return awaitSnapshot(inspectCountDownLatchAsync(name), name, "count-down latch");
    }

    CompletableFuture<LatchInfo> inspectCountDownLatchAsync(String name) {
        LockNames.requireValid(name);
        if (closed.getAsBoolean()) {
            return CompletableFuture.failedFuture(new LockException(name, "count-down latch '" + name
                    + "': the lock client is closed", null));
        }
        return onExecutor(latches.inspect(name));
    }

    /** {@code reply}'s outcome (already in the API's exceptions) on a new future completed on the executor. */
    private <T> CompletableFuture<T> onExecutor(CompletableFuture<T> reply) {
        return Callers.toCaller(executor, null, null, reply, Errors::unwrap);
    }

    /** Waits for a snapshot, uninterruptibly for its one round trip (the interrupt flag is kept). */
    private <T> T awaitSnapshot(CompletableFuture<T> future, String name, String kind) {
        return waits.awaitUninterruptibly(future, kind, name, "inspect");
    }
}
