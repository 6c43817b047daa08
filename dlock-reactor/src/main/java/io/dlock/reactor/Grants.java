package io.dlock.reactor;

import reactor.core.publisher.Mono;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
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
 *   <li>A grant that the core completed just as the subscriber cancelled (the cancel lost the race for the future)
 *       is given back here, once: exactly one of "emitted" and "given back" happens to every grant, decided by one
 *       compare-and-set on the subscription's state.</li>
 *   <li>A grant emitted into a {@code MonoSink} that has no demand yet and is then cancelled is discarded by
 *       Reactor; the discard hook gives it back too.</li>
 * </ul>
 * Nothing here blocks: the core future completes on the client's executor and this code only moves signals.
 */
final class Grants {
    private static final int WAITING = 0;
    private static final int SETTLED = 1;
    private static final int CANCELLED = 2;

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
     * @param start     starts one acquisition; called at subscription, once per subscription; may throw (the Mono
     *                  then fails with what it threw)
     * @param grantType the grant's class, for Reactor's discard hook
     * @param giveBack  gives back a grant that no subscriber will ever see; must not block and never throws
     */
    static <T> Mono<T> acquire(Supplier<Started<T>> start, Class<T> grantType, Consumer<T> giveBack) {
        return Mono.<T>create(sink -> {
            Started<T> started = start.get();
            AtomicInteger state = new AtomicInteger(WAITING);
            sink.onCancel(() -> {
                if (state.compareAndSet(WAITING, CANCELLED)) {
                    started.acquisition().cancel(false);
                }
            });
            started.grant().whenComplete((grant, error) -> {
                if (error != null) {
                    if (state.compareAndSet(WAITING, SETTLED)) {
                        sink.error(unwrap(error));
                    }
                } else if (state.compareAndSet(WAITING, SETTLED)) {
                    if (grant == null) {
                        sink.success();
                    } else {
                        sink.success(grant);
                    }
                } else if (grant != null) {
                    giveBack.accept(grant);
                }
            });
        }).doOnDiscard(grantType, giveBack);
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
