package io.dlock.internal.semaphore;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** How the sync methods of the semaphores wait for their async work. */
final class SyncCalls {
    private SyncCalls() {
    }

    /**
     * Waits for {@code future} without giving up on an interrupt (a short Redis call: the interrupt flag is set again
     * when it returns).
     */
    static <T> T await(CompletableFuture<T> future, String kind, String name, String operation) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw SemaphoreErrors.toApi(e.getCause(), kind, name, operation);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for an acquisition; on an interrupt it abandons it ({@code abandon}: a grant in flight is given back)
     * and throws, unless the grant had arrived already: then it returns it and sets the interrupt flag again.
     */
    static <T> T awaitInterruptibly(CompletableFuture<T> future, Runnable abandon, String kind, String name,
                                    String operation) throws InterruptedException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            abandon.run();
            if (future.isDone() && !future.isCompletedExceptionally()) {
                // granted just before the interrupt: the caller gets it (never dropped), with its flag set again
                Thread.currentThread().interrupt();
                return future.join();
            }
            throw e;
        } catch (ExecutionException e) {
            throw SemaphoreErrors.toApi(e.getCause(), kind, name, operation);
        }
    }
}
