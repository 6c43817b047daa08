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
     * <p>The cancel rule, for every kind: a cancelled acquisition leaves nothing held. The caller's future may be
     * cancelled after {@code internal} completed with a grant and before the hand-over to the executor ran, so
     * {@code abandon} must give back what a completed acquisition holds, not only cancel a pending one (as
     * {@link AcquireLoop#abandon} and the multi-lock's do); and the future returned here is the caller's own: a value
     * of the caller's type is mapped inside {@code internal}, never in a future derived from this one, whose cancel
     * would no longer reach the acquisition once the hand-over ran (issue 43 #2: both left a multi-lock's members
     * held and renewed by the watchdog).
     *
     * @param abandon abandons the acquisition, giving back what it holds if it completed with a grant; or null for
     *                an operation that is no acquisition
     */
    public static <T> CompletableFuture<T> toCaller(Executor executor, Supplier<CompletableFuture<?>> abandon,
                                                    Consumer<CompletableFuture<?>> trackCleanup,
                                                    CompletableFuture<T> internal,
                                                    Function<Throwable, ? extends Throwable> mapError) {
        OnCancelFuture<T> exposed = new OnCancelFuture<>();
        if (abandon != null) {
            // before cancel() returns, on the cancelling thread: the owner's next acquisition must see the cleanup
            exposed.onCancel(() -> trackCleanup.accept(abandon.get()));
        }
        internal.whenCompleteAsync((value, error) -> {
            if (error != null) {
                exposed.completeExceptionally(mapError.apply(error));
            } else {
                exposed.complete(value);
            }
        }, executor);
        return exposed;
    }
}
