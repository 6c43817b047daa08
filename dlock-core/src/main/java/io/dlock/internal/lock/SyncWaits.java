package io.dlock.internal.lock;

import io.dlock.internal.Errors;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Blocking waits on futures for the synchronous API. Uses {@link CompletableFuture#get()} (parks, so virtual
 * threads are not pinned); rethrows the future's failure unwrapped.
 */
final class SyncWaits {
    private SyncWaits() {
    }

    /** Waits, ignoring interrupts until done, then restores the interrupt flag. */
    static <T> T awaitUninterruptibly(CompletableFuture<T> future) {
        boolean interrupted = false;
        try {
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
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits; on interrupt throws {@link InterruptedException} (the caller cleans up first). */
    static <T> T await(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw rethrow(e);
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
