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
 * <p>{@code Flux.usingWhen} over the acquisition alone leaves a window: a cancel that crosses the grant on its way
 * to the operator (the grant emitted on the client's executor, the cancel on another thread) may find the resource
 * "not provided yet", cancel only the acquisition, which is already settled, and the grant is then held by nobody.
 * So the grant is first handed to {@code flatMapMany}, whose inner subscription is set atomically: an inner
 * subscribed after the cancel is cancelled at once. Inside, {@code usingWhen} runs the work over the grant, and every
 * way out of it releases: completion, error and cancellation through {@code usingWhen}, a cancel before the work
 * was subscribed through the grant's own cancel hook. Releases are idempotent (the grant releases once, whichever
 * path asks first), so two paths racing release once.
 */
final class Holding {
    private Holding() {
    }

    /**
     * @param acquisition emits the grant, or completes empty (the work then never runs)
     * @param work        the work over the grant; called once per grant
     * @param release     the release, subscribed on complete, error and cancel; idempotent
     * @param giveBack    the same release without a subscriber, for a cancel that came before the work began
     */
    static <G, T> Flux<T> using(Mono<G> acquisition, Function<? super G, ? extends Publisher<T>> work,
                                Function<G, Mono<Void>> release, Consumer<G> giveBack) {
        return acquisition.flatMapMany(grant -> Flux.usingWhen(
                Mono.just(grant).doOnCancel(() -> giveBack.accept(grant)),
                work,
                release,
                (held, error) -> release.apply(held),
                release));
    }
}
