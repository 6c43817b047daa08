package io.dlock.reactor;

import io.dlock.LockLostException;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Holding}'s order of events without Redis: the work's cancellation runs before the give-back, a lost grant
 * cancels the work before it is given back and then fails downstream, and a cancel that wins over the work's start
 * never calls the work.
 */
class HoldingTest {
    private static final Duration VERIFY = Duration.ofSeconds(10);

    /** A grant that records its release and give-back, the first of which takes effect. */
    private static final class Grant {
        final Queue<String> events;
        final AtomicBoolean back = new AtomicBoolean();
        final AtomicInteger effective = new AtomicInteger();

        Grant(Queue<String> events) {
            this.events = events;
        }

        Mono<Void> release() {
            return Mono.fromRunnable(() -> back("released"));
        }

        void giveBack() {
            back("given back");
        }

        private void back(String how) {
            if (back.compareAndSet(false, true)) {
                effective.incrementAndGet();
                events.add(how);
            }
        }
    }

    @Test
    void aCancelGoesThroughTheWorkBeforeTheGrantIsGivenBack() {
        Queue<String> events = new ConcurrentLinkedQueue<>();
        Grant grant = new Grant(events);
        Disposable subscription = Holding.using(Mono.just(grant), g -> Flux.never()
                                .doOnSubscribe(s -> events.add("work runs"))
                                .doOnCancel(() -> events.add("work cancelled"))
                                .doFinally(signal -> events.add("work's finally: " + signal)),
                        Grant::release, Grant::giveBack, g -> null)
                .subscribe();
        subscription.dispose();
        assertThat(events).containsExactly("work runs", "work cancelled", "work's finally: cancel", "given back");
    }

    @Test
    void aLostGrantCancelsTheWorkThenGivesItBackThenFails() {
        Queue<String> events = new ConcurrentLinkedQueue<>();
        Grant grant = new Grant(events);
        Sinks.Empty<Void> lost = Sinks.empty();
        StepVerifier.create(Holding.using(Mono.just(grant), g -> Flux.never()
                                .doOnCancel(() -> events.add("work cancelled")),
                        Grant::release, Grant::giveBack, g -> lost.asMono()))
                .expectSubscription()
                .then(() -> lost.tryEmitError(new LockLostException("x", "lost")))
                .expectErrorSatisfies(error -> {
                    assertThat(error).isInstanceOf(LockLostException.class);
                    // a lost grant is given back without waiting for Redis: there is nothing of it to wait for
                    assertThat(events).containsExactly("work cancelled", "given back");
                })
                .verify(VERIFY);
        assertThat(lost.currentSubscriberCount()).as("the watch ends with the work").isZero();
    }

    @Test
    void theWatchEndsWhenTheWorkCompletesAndTheReleaseComesBeforeTheCompletion() {
        Queue<String> events = new ConcurrentLinkedQueue<>();
        Grant grant = new Grant(events);
        Sinks.Empty<Void> lost = Sinks.empty();
        StepVerifier.create(Holding.using(Mono.just(grant), g -> Flux.just(1, 2), Grant::release, Grant::giveBack,
                        g -> lost.asMono()).doOnComplete(() -> events.add("completed")))
                .expectNext(1, 2).expectComplete().verify(VERIFY);
        assertThat(events).containsExactly("released", "completed");
        assertThat(lost.currentSubscriberCount()).isZero();
    }

    @Test
    void aCancelRacingTheWorksStartGivesBackOnceAndNeverStartsTheWorkAfterIt() {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        int rounds = 20_000;
        int workCalledAfterCancel = 0;
        int workCalled = 0;
        for (int i = 0; i < rounds; i++) {
            Queue<String> events = new ConcurrentLinkedQueue<>();
            Grant grant = new Grant(events);
            AtomicBoolean cancelled = new AtomicBoolean();
            AtomicBoolean calledAfterCancel = new AtomicBoolean();
            // the grant completes on another thread, through the package's own bridge, as the core's would
            // (a cancel that finds it not completed cancels it: nothing was granted, as the core's abandon answers)
            CompletableFuture<Grant> granting = CompletableFuture.supplyAsync(() -> grant, executor);
            Mono<Grant> acquisition = Grants.acquire(() -> Grants.Started.of(granting, g -> g), Grant::giveBack);
            Disposable subscription = Holding.using(acquisition, g -> {
                        calledAfterCancel.set(cancelled.get());
                        events.add("work called");
                        return Flux.never().doFinally(signal -> events.add("work ended"));
                    }, Grant::release, Grant::giveBack, g -> null)
                    .subscribe();
            if ((i & 1) == 0) {
                Thread.onSpinWait();
            }
            subscription.dispose();
            cancelled.set(true); // the cancel has been through the scope: from now on the work must not start
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!granting.isCancelled() && grant.effective.get() == 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            assertThat(grant.effective).as("one give-back in round " + i + " unless nothing was granted")
                    .hasValue(granting.isCancelled() ? 0 : 1);
            List<String> seen = List.copyOf(events);
            if (seen.contains("work called")) {
                workCalled++;
                assertThat(seen).as("the work ended before the give-back")
                        .containsExactly("work called", "work ended", "given back");
            }
            if (calledAfterCancel.get()) {
                workCalledAfterCancel++;
            }
        }
        executor.shutdownNow();
        assertThat(workCalledAfterCancel).as("work called after the cancel returned (of " + workCalled + " called)")
                .isZero();
    }
}
