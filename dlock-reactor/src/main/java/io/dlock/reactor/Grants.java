package io.dlock.reactor;

import reactor.core.publisher.Mono;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one bridge from a core acquisition future to a {@link Mono}: every acquiring method of this package goes
 * through {@link #acquire}. Stateless, thread-safe.
 *
 * <p>The contract it keeps, for every kind: <b>a subscriber that cancels holds nothing afterwards.</b>
 * <ul>
 *   <li>Each subscription starts its own acquisition (the {@code start} supplier runs once per subscription, so a
 *       lock's start makes a new owner each time) and nothing runs before a subscription.</li>
 *   <li>A cancel while the acquisition waits cancels the core future: the core abandons the wait and gives back
 *       whatever an attempt in flight takes (its lost-reply rule, {@code AcquireLoop.abandon}).</li>
 *   <li>Every grant is either delivered or given back here, exactly once. The subscription's state is one atomic
 *       reference: waiting, cancelled, ended (empty or failed), or the grant itself once the core settled it. A grant
 *       that meets a cancelled state is given back by the completion; a cancel that meets a grant gives it back
 *       itself. The second is needed because Reactor's {@code MonoSink} lets a cancel win over a {@code success}
 *       already under way and then <em>drops</em> the value ({@code onNextDropped}, no discard hook): seen as a hold
 *       kept by nobody in {@code ReactiveLockIT.aCancelRacingTheGrantNeverLeavesTheLockHeld}, about once in 800
 *       rounds. The sink runs its cancel callback only when the cancel won over the delivery, so a grant the
 *       subscriber received is never given back from here.</li>
 * </ul>
 * Nothing here blocks: the core future completes on the client's executor and this code only moves signals.
 */
final class Grants {
    private static final Object WAITING = new Object();
    private static final Object CANCELLED = new Object();
    private static final Object ENDED = new Object();

    private Grants() {
    }

    /**
     * One subscription's acquisition: the core future it started, and the grant that future's value becomes.
     *
     * @param acquisition the core's acquisition future: cancelling it abandons the acquisition
     * @param grant       completes with the grant, or with null when nothing was granted (a try that found the object
     *                    busy: the Mono then completes empty), or with the acquisition's failure
     */
    record Started<T>(CompletableFuture<?> acquisition, CompletableFuture<T> grant) {
        /** @param toGrant the grant for the acquisition's value, or null for "not granted"; must not block */
        static <R, T> Started<T> of(CompletableFuture<R> acquisition, Function<? super R, ? extends T> toGrant) {
            return new Started<>(acquisition, acquisition.thenApply(toGrant));
        }
    }

    /**
     * @param start    starts one acquisition; called at subscription, once per subscription; may throw (the Mono then
     *                 fails with what it threw)
     * @param giveBack gives back a grant that no subscriber will ever see; must not block and never throws; called
     *                 at most once per grant
     */
    static <T> Mono<T> acquire(Supplier<Started<T>> start, Consumer<T> giveBack) {
        return Mono.create(sink -> {
            Started<T> started = start.get();
            // WAITING, then CANCELLED, ENDED, or the grant (delivered unless a cancel takes it back)
            AtomicReference<Object> state = new AtomicReference<>(WAITING);
            sink.onCancel(() -> {
                Object before = state.getAndSet(CANCELLED);
                if (before == WAITING) {
                    started.acquisition().cancel(false);
                } else if (before != CANCELLED && before != ENDED) {
                    @SuppressWarnings("unchecked") // only the completion below stores a grant: a T
                    T grant = (T) before;
                    giveBack.accept(grant); // the sink drops a grant whose delivery this cancel beat
                }
            });
            started.grant().whenComplete((grant, error) -> {
                if (!state.compareAndSet(WAITING, grant == null || error != null ? ENDED : grant)) {
                    if (grant != null) {
                        giveBack.accept(grant); // cancelled before the core settled
                    }
                } else if (error != null) {
                    sink.error(unwrap(error));
                } else if (grant == null) {
                    sink.success();
                } else {
                    sink.success(grant);
                }
            });
        });
    }

    /** A query or a release: the future's value (null = empty); a cancel cancels the future. */
    static <T> Mono<T> call(Supplier<CompletableFuture<T>> start) {
        return Mono.fromFuture(start, false).onErrorMap(CompletionException.class, Grants::unwrap);
    }

    /** The exception the core meant: futures composed with {@code thenCompose} wrap it in a CompletionException. */
    static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
