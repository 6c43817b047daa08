package io.dlock.reactor;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one "hold while the work runs" operator behind {@code withLock}, {@code withPermits} and {@code withPermit}.
 * Stateless, thread-safe.
 *
 * <p><b>Every way out releases.</b> The work's completion releases, and completes downstream only once the release is
 * answered (so the caller's next acquisition does not find its own hold); the work's error (or a work function that
 * throws) releases and then signals the error; a cancel gives the grant back at once, whether it comes before the
 * work was subscribed, while it runs or while the release is in flight. Releases are idempotent (the grant releases
 * once, whichever path asks first), so paths that race release once.
 *
 * <p><b>Why not {@code Flux.usingWhen}.</b> A cancel that crosses the grant on its way in (the grant delivered on the
 * client's executor, the cancel on another thread) was lost twice there: before the resource was provided (only the
 * already settled acquisition was cancelled), and between "resource provided" and the work's subscriber being set
 * (the cancel then found no subscriber to pass to, and the work ran on, holding the lock: seen in
 * {@code ReactiveLockIT.aCancelRacingTheGrantNeverLeavesTheLockHeld}). Here the grant goes through
 * {@code flatMapMany}, whose inner subscription is set atomically: an inner subscribed after the cancel is cancelled
 * at once, and the {@code doOnCancel} closest to it gives the grant back.
 */
final class Holding {
    private Holding() {
    }

    /**
     * @param acquisition emits the grant, or completes empty (the work then never runs)
     * @param work        the work over the grant; called once per grant
     * @param release     the release, subscribed on complete and error; idempotent
     * @param giveBack    the same release without a subscriber, for a cancel; idempotent, never throws
     */
    static <G, T> Flux<T> using(Mono<G> acquisition, Function<? super G, ? extends Publisher<T>> work,
                                Function<G, Mono<Void>> release, Consumer<G> giveBack) {
        return acquisition.flatMapMany(grant -> Flux.<T>defer(() -> work.apply(grant))
                .onErrorResume(error -> release.apply(grant)
                        .onErrorResume(releaseError -> {
                            if (releaseError != error) {
                                error.addSuppressed(releaseError); // the work's error stays the one signalled
                            }
                            return Mono.empty();
                        })
                        .then(Mono.error(error)))
                .concatWith(Mono.defer(() -> release.apply(grant)).then(Mono.empty()))
                .doOnCancel(() -> giveBack.accept(grant)));
    }
}
