package io.dlock.internal.acquire;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * A future whose cancellation runs a hook on the cancelling thread, before {@code cancel} returns, exactly once.
 *
 * <p>Why not {@code whenComplete}: a dependent of a {@link CompletableFuture} runs on whichever thread pops it, and a
 * thread that completes the future at the same moment (its {@code complete} fails, but it still runs the dependents)
 * may pop it first; {@code cancel} then returns before the dependent ran. Every cancel rule that must hold when the
 * caller's {@code cancel} returns (the owner's next acquisition waits for this one's give-back) is written here:
 * a multi-lock's next {@code tryLock} met its cancelled predecessor's give-back as a loss, once in about 6,000 cancels,
 * when the hook ran late on the executor's thread.
 *
 * <p>Futures derived from this one ({@code thenApply}, …) are plain {@link CompletableFuture}s.
 */
public final class OnCancelFuture<T> extends CompletableFuture<T> {
    private volatile Runnable onCancel = () -> { };

    /** Sets the hook; call before anyone else sees the future. */
    public OnCancelFuture<T> onCancel(Runnable hook) {
        this.onCancel = Objects.requireNonNull(hook, "hook");
        return this;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            onCancel.run();
        }
        return cancelled;
    }

    /** A completion with a {@link CancellationException} is a cancel too ({@link #isCancelled()}): same hook. */
    @Override
    public boolean completeExceptionally(Throwable error) {
        boolean completed = super.completeExceptionally(error);
        if (completed && error instanceof CancellationException) {
            onCancel.run();
        }
        return completed;
    }
}
