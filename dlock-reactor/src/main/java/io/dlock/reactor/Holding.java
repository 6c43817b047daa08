package io.dlock.reactor;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one hold scope, "hold while the work runs", behind {@code withLock}, {@code ReactiveLock.using},
 * {@code withPermits}, {@code withPermit}, {@code ReactiveLeasedSemaphore.using} and, through the last two kinds,
 * dlock-spring's annotations on methods returning a {@code Mono} or {@code Flux}. Stateless, thread-safe.
 *
 * <p><b>The work ends before the hold.</b> Every way out stops the work first and gives the grant back after:
 * <ul>
 *   <li>the work completes: released, and downstream completes once the release is answered (so the caller's next
 *       acquisition does not find its own hold);</li>
 *   <li>the work fails (or the work function throws): released, then the error;</li>
 *   <li>a cancel from downstream ({@code dispose()}, {@code timeout}, {@code take(n)}, a {@code switchMap} switch)
 *       goes up to the work first, and the grant is given back only once that cancel has returned, that is after the
 *       work's cancellation ran on the cancelling thread ({@code doOnCancel}, {@code doFinally}, the cancel of a call
 *       in flight): a {@code doFinally} right on the work gives back, and Reactor runs that hook only after it passed
 *       the cancel up to the work. A hook further down ({@code doOnCancel}) would run before, releasing while the work
 *       still ran ({@code ReactiveHoldScopeIT}: another client got in during a clean-up of 30 ms in 38-40 of 40
 *       rounds); one further down that runs after the cancel still misses a cancel that overtakes the work's
 *       subscription (the operators between hand it on only when the work's subscription arrives);</li>
 *   <li>the grant is lost while the work runs ({@code lost}): the work is cancelled (and its cancellation runs),
 *       then the grant is given back without waiting for an answer (a lost hold has nothing left to wait for), then
 *       downstream fails with the watch's {@link io.dlock.LockLostException}.</li>
 * </ul>
 * Clean-up that the work hands to another thread (a {@code usingWhen}'s asynchronous cancel, a {@code cancelOn}) is
 * not waited for: a cancel has no completion signal in Reactive Streams.
 *
 * <p><b>A cancel that crosses the grant.</b> Before the grant reaches the scope, {@link Grants} gives it back. After,
 * a per-subscription {@link Scope} decides between the work and the cancel: a cancel that comes first gives the grant
 * back and the work function is never called; a cancel that comes after the work began cancels the work, and the
 * give-back waits for that cancel to return from the work, also when the cancel overtakes the work's subscription
 * (Reactor's operators then pass it on when the work's subscription arrives). Releases are idempotent (the grant
 * releases once, whichever path asks first), so paths that race release once.
 *
 * <p><b>Why not {@code Flux.usingWhen}.</b> A cancel that crosses the grant on its way in was lost twice there: before
 * the resource was provided, and between "resource provided" and the work's subscriber being set (the work then ran
 * on, holding the lock: {@code ReactiveLockIT.aCancelRacingTheGrantNeverLeavesTheLockHeld}). Here the grant goes
 * through {@code flatMapMany}, whose inner subscription is set atomically: an inner subscribed after the cancel is
 * cancelled at once.
 */
final class Holding {
    private Holding() {
    }

    /**
     * @param acquisition emits the grant, or completes empty (the work then never runs)
     * @param work        the work over the grant; called at most once per grant, never after a cancel
     * @param release     the release, subscribed on complete and error; idempotent
     * @param giveBack    the same release without a subscriber, for a cancel; idempotent, never throws
     * @param lost        the watch of a grant: fails with {@link io.dlock.LockLostException} when the grant is lost
     *                    and never completes otherwise; subscribed while the work runs. Null when the grant cannot be
     *                    lost (counted permits, a permit this package did not emit)
     */
    static <G, T> Flux<T> using(Mono<G> acquisition, Function<? super G, ? extends Publisher<T>> work,
                                Function<G, Mono<Void>> release, Consumer<G> giveBack,
                                Function<G, Mono<Void>> lost) {
        return Flux.defer(() -> {
            Scope<G> scope = new Scope<>(giveBack);
            return acquisition.flatMapMany(grant -> Flux.<T>defer(() -> {
                                if (!scope.begin(grant)) {
                                    giveBack.accept(grant); // cancelled on its way in: the work is never called
                                    return Flux.empty();
                                }
                                // the hook closest to the work: it runs once the work's own cancel has returned
                                Flux<T> running = Flux.<T>from(work.apply(grant)).doFinally(scope::workEnded);
                                Mono<Void> watch = lost.apply(grant);
                                return watch == null ? running : stoppedOnLoss(running, watch);
                            })
                            .onErrorResume(error -> release.apply(grant)
                                    .onErrorResume(releaseError -> {
                                        if (releaseError != error) {
                                            error.addSuppressed(releaseError); // the work's error stays the one
                                        }
                                        return Mono.empty();
                                    })
                                    .then(Mono.error(error)))
                            .concatWith(Mono.defer(() -> release.apply(grant)).then(Mono.empty())))
                    .doOnCancel(scope::cancelled);
        });
    }

    /**
     * The work until the watch fails, then the watch's error: the work is cancelled first. (Reactor's
     * {@code takeUntilOther} cancels its source when the other publisher emits a value, and then completes; when the
     * other fails it signals the error and leaves the source running, so the loss is turned into a value here.)
     */
    private static <T> Flux<T> stoppedOnLoss(Flux<T> running, Mono<Void> watch) {
        AtomicReference<Throwable> loss = new AtomicReference<>();
        return running.takeUntilOther(watch.then(Mono.<Throwable>empty()).onErrorResume(error -> {
                    loss.set(error);
                    return Mono.just(error);
                }))
                .concatWith(Mono.defer(() -> {
                    Throwable error = loss.get();
                    return error == null ? Mono.empty() : Mono.error(error);
                }));
    }

    /**
     * One subscription's hold scope: the race between the work's start and a cancel, and which of the cancel and the
     * work's end gives the grant back. Thread-safe.
     *
     * <p>Invariant: a cancel gives the grant back exactly when the work is not running. {@link #cancelled()} runs
     * first on a cancel (before it goes on up to the acquisition and the work): before the work began it wins the
     * start, and {@link #begin} then refuses the work; after the work ended (the release not yet subscribed) it gives
     * back itself; while the work runs it leaves the give-back to {@link #workEnded}, which runs once the cancel has
     * gone through the work. The flag and the state are written before the other is read on both sides, so at least
     * one of a cancel and a concurrent end sees the other and gives back (gives-back are idempotent).
     */
    private static final class Scope<G> {
        private static final int WAITING = 0;
        private static final int RUNNING = 1;
        private static final int ENDED = 2;
        private static final int CANCELLED = 3;

        private final Consumer<G> giveBack;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private volatile boolean cancelled;
        private volatile G grant;

        Scope(Consumer<G> giveBack) {
            this.giveBack = giveBack;
        }

        /** @return true when the work may begin: no cancel came before */
        boolean begin(G granted) {
            grant = granted;
            return state.compareAndSet(WAITING, RUNNING);
        }

        void workEnded(SignalType signal) {
            state.set(ENDED);
            if (signal == SignalType.CANCEL || cancelled) {
                giveBack.accept(grant); // the work's cancel has returned (or a cancel met a work just ended)
            }
        }

        void cancelled() {
            cancelled = true;
            if (!state.compareAndSet(WAITING, CANCELLED) && state.get() == ENDED) {
                giveBack.accept(grant); // ended, and the release may never be subscribed now
            }
        }
    }
}
