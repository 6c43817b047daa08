package io.dlock.internal.acquire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/** How every kind hands an internal future to its caller: one rule for completion threads, errors and cancels. */
public final class Callers {
    private Callers() {
    }

    /**
     * The caller's future completes on the client's executor (never on Lettuce's I/O thread), with the failure mapped
     * by {@code mapError}. Cancelling it abandons the acquisition; a grant that arrives after the cancel is given back
     * by the abandon ({@link AcquireLoop#abandon}), and the owner's next acquisition waits for that cleanup
     * ({@code trackCleanup}, given the cleanup's future).
     *
     * @param abandon abandons the acquisition, or null for an operation that is no acquisition
     */
    public static <T> CompletableFuture<T> toCaller(Executor executor, Supplier<CompletableFuture<?>> abandon,
                                                    Consumer<CompletableFuture<?>> trackCleanup,
                                                    CompletableFuture<T> internal,
                                                    Function<Throwable, ? extends Throwable> mapError) {
        CompletableFuture<T> exposed = new CompletableFuture<>();
        internal.whenCompleteAsync((value, error) -> {
            if (error != null) {
                exposed.completeExceptionally(mapError.apply(error));
            } else {
                exposed.complete(value);
            }
        }, executor);
        if (abandon != null) {
            exposed.whenComplete((value, error) -> {
                if (exposed.isCancelled()) {
                    trackCleanup.accept(abandon.get());
                }
            });
        }
        return exposed;
    }
}
