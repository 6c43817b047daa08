package io.dlock.reactor;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The ways a subscriber cancels a publisher that holds while its work runs, each on the thread it comes from in an
 * application: {@code dispose()} on the caller's thread, {@code timeout} on a timer thread, {@code take(n)} on the
 * thread of the work's n-th element, a {@code switchMap} switch on the thread of the next outer element. Each round
 * cancels once the work is running, and the work's cancel path runs the {@link CleanUpProbe}.
 */
enum CancelShape {
    DISPOSE,
    /** A timeout of 100 ms from the moment the work started (so that the acquisition's time does not count). */
    TIMEOUT,
    TAKE,
    SWITCH_MAP;

    private static final Duration ROUND = Duration.ofSeconds(15);

    /**
     * One round: subscribes to {@code scoped} over a work, cancels it once the work runs, and returns once the
     * returned publisher has terminated (or, for {@code dispose()}, once the cancel has returned).
     *
     * @param scoped the publisher under test, holding while the work it is given runs
     */
    void round(Function<Flux<Long>, Flux<Long>> scoped, CleanUpProbe probe) {
        Sinks.One<Boolean> entered = Sinks.one();
        Flux<Long> quiet = Flux.<Long>never().doOnSubscribe(s -> entered.tryEmitValue(true))
                .doOnCancel(probe::cleanUp);
        switch (this) {
            case DISPOSE -> {
                Disposable subscription = scoped.apply(quiet).subscribe();
                entered.asMono().block(ROUND);
                subscription.dispose();
            }
            case TIMEOUT -> scoped.apply(quiet)
                    .timeout(entered.asMono().then(Mono.delay(Duration.ofMillis(100))))
                    .onErrorResume(TimeoutException.class, timedOut -> Flux.empty())
                    .blockLast(ROUND);
            case TAKE -> scoped.apply(Flux.interval(Duration.ofMillis(5)).doFinally(signal -> {
                        if (signal == SignalType.CANCEL) {
                            probe.cleanUp();
                        }
                    }))
                    .take(2)
                    .blockLast(ROUND);
            case SWITCH_MAP -> Flux.concat(Mono.just(1L), entered.asMono().publishOn(Schedulers.parallel())
                            .thenReturn(2L))
                    .switchMap(i -> i == 1L ? scoped.apply(quiet) : Mono.just(i))
                    .blockLast(ROUND);
        }
    }
}
