package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.redisprocess.Await;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link DistributedLocked} and {@link DistributedConcurrencyLimit} on methods returning Reactor's Mono and Flux: the
 * lock (the permit) is held from each subscription until the returned publisher terminates or is cancelled, each
 * subscription acquiring for itself. Two application contexts on one Redis act as two instances.
 */
@ExtendWith(RedisExtension.class)
class ReactiveMethodsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** State the instances share, reset per test. */
    public static class Shared {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        volatile Sinks.Empty<Void> gate = Sinks.empty();
        /** The cancel clean-up of {@link Jobs#cleansUpOnCancel}: runs on the cancelling thread. */
        volatile Runnable cleanUp = () -> { };

        Mono<String> cleansUpOnCancel() {
            return Mono.<String>never().doOnSubscribe(s -> runs.incrementAndGet()).doOnCancel(() -> cleanUp.run());
        }

        <T> Flux<T> tracked(Publisher<T> work) {
            return Flux.defer(() -> {
                runs.incrementAndGet();
                maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                return Flux.from(work).doOnTerminate(running::decrementAndGet).doOnCancel(running::decrementAndGet);
            });
        }

        Mono<String> gated() {
            runs.incrementAndGet();
            return gate.asMono().thenReturn("opened");
        }
    }

    public static class Jobs {
        private final Shared shared;

        public Jobs(Shared shared) {
            this.shared = shared;
        }

        @DistributedLocked(name = "rx:work", waitTime = "forever")
        public Mono<Integer> work() {
            return Mono.from(shared.tracked(Mono.delay(Duration.ofMillis(10)).thenReturn(1)));
        }

        @DistributedLocked(name = "rx:flux", waitTime = "forever", leaseTime = "20s")
        public Flux<Integer> emissions() {
            return shared.tracked(Flux.range(1, 3).delayElements(Duration.ofMillis(30)));
        }

        @DistributedLocked(name = "rx:#{#name}")
        public Mono<String> gated(String name) {
            return shared.gated();
        }

        @DistributedLocked(name = "rx:#{#name}", kind = io.dlock.LockKind.FENCED)
        public Mono<String> fencedGated(String name) {
            return shared.gated();
        }

        @DistributedLocked(name = "rx:#{#name}")
        public Mono<String> tryOnce(String name) {
            shared.runs.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLocked(name = "rx:#{#name}", whenBusy = WhenBusy.SKIP)
        public Mono<String> skipWhenBusy(String name) {
            shared.runs.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLocked(name = "rx:#{#name}", waitTime = "10s")
        public Flux<String> waitFor(String name) {
            shared.runs.incrementAndGet();
            return Flux.just("a", "b");
        }

        @DistributedLocked(name = "rx:fails")
        public Mono<String> fails() {
            return Mono.delay(Duration.ofMillis(20)).then(Mono.error(new IllegalStateException("boom")));
        }

        @DistributedLocked(name = "rx:throws")
        public Flux<String> throwsAtOnce() {
            throw new IllegalArgumentException("thrown by the method");
        }

        @DistributedConcurrencyLimit(name = "rx:limit", permits = 2, waitTime = "forever")
        public Mono<Integer> limited() {
            return Mono.from(shared.tracked(Mono.delay(Duration.ofMillis(20)).thenReturn(1)));
        }

        @DistributedLocked(name = "rx:cleanup")
        public Mono<String> cleansUpOnCancel() {
            return shared.cleansUpOnCancel();
        }

        @DistributedConcurrencyLimit(name = "rx:limit-cleanup", permits = 1)
        public Mono<String> limitedCleansUpOnCancel() {
            return shared.cleansUpOnCancel();
        }

        @DistributedConcurrencyLimit(name = "rx:limit-gate", permits = 1)
        public Mono<String> limitedGated() {
            return shared.gated();
        }

        @DistributedConcurrencyLimit(name = "rx:both", permits = 3, waitTime = "forever")
        @DistributedLocked(name = "rx:both-lock", waitTime = "forever")
        public Flux<Integer> limitedAndLocked() {
            return shared.tracked(Flux.just(1, 2).delayElements(Duration.ofMillis(10)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import(Jobs.class)
    public static class JobsConfig {
    }

    private final Shared shared = new Shared();
    private Instances instances;
    private Jobs a;
    private Jobs b;

    @BeforeEach
    void start(RedisServer redis) {
        instances = new Instances(redis.uri());
        a = instances.start(List.of(shared), JobsConfig.class).getBean(Jobs.class);
        b = instances.start(List.of(shared), JobsConfig.class).getBean(Jobs.class);
    }

    @AfterEach
    void stop() {
        shared.gate.tryEmitEmpty();
        instances.close();
    }

    @Test
    void monoCallsExcludeEachOtherFromSubscriptionToCompletion(LockClient observer) {
        List<Integer> done = Flux.range(0, 20).flatMap(i -> i % 2 == 0 ? a.work() : b.work(), 20)
                .collectList().block(TIMEOUT);
        assertThat(done).hasSize(20);
        assertThat(shared.runs).hasValue(20);
        assertThat(shared.maxRunning).as("never two at once").hasValue(1);
        assertThat(observer.getLock("rx:work").isLocked()).isFalse();
    }

    @Test
    void theCallIsLazyAndHeldUntilThePublisherCompletes(LockClient observer) throws Exception {
        Mono<String> call = a.gated("lazy");
        Thread.sleep(100);
        assertThat(shared.runs).as("the method runs at subscription").hasValue(0);
        assertThat(observer.getLock("rx:lazy").isLocked()).as("nothing acquired before subscription").isFalse();

        List<String> got = new CopyOnWriteArrayList<>();
        call.subscribe(got::add);
        Await.until(TIMEOUT, () -> shared.runs.get() == 1, "the subscription runs the method");
        assertThat(observer.getLock("rx:lazy").isLocked()).as("under the lock").isTrue();

        assertThatThrownBy(() -> b.tryOnce("lazy").block(TIMEOUT)).as("another subscriber, whenBusy THROW")
                .isInstanceOf(LockBusyException.class).hasMessageContaining("lock 'rx:lazy'")
                .hasMessageContaining("Jobs.tryOnce(String)");
        assertThat(b.skipWhenBusy("lazy").block(TIMEOUT)).as("whenBusy SKIP completes empty").isNull();
        assertThat(shared.runs).as("neither busy call ran the method").hasValue(1);

        List<String> waited = new CopyOnWriteArrayList<>();
        b.waitFor("lazy").subscribe(waited::add);
        Thread.sleep(200);
        assertThat(waited).as("a waiting subscriber waits").isEmpty();

        shared.gate.tryEmitEmpty();
        Await.until(TIMEOUT, () -> waited.size() == 2, "the waiting subscriber ran after the release");
        assertThat(got).containsExactly("opened");
        Await.until(TIMEOUT, () -> !observer.getLock("rx:lazy").isLocked(), "released after completion");
    }

    @Test
    void aFluxHoldsTheLockAcrossItsEmissions(LockClient observer) {
        List<Boolean> lockedAtEach = Flux.merge(a.emissions(), b.emissions())
                .map(i -> observer.getLock("rx:flux").isLocked()).collectList().block(TIMEOUT);
        assertThat(lockedAtEach).hasSize(6).containsOnly(true);
        assertThat(shared.maxRunning).as("the second Flux waited for the first one's completion").hasValue(1);
        assertThat(observer.getLock("rx:flux").isLocked()).isFalse();
    }

    @Test
    void cancellingReleases(LockClient observer) {
        Disposable subscription = a.gated("cancel").subscribe();
        Await.until(TIMEOUT, () -> observer.getLock("rx:cancel").isLocked(), "held");
        subscription.dispose();
        Await.until(TIMEOUT, () -> !observer.getLock("rx:cancel").isLocked(), "released on cancel");
        assertThat(b.tryOnce("cancel").block(TIMEOUT)).isEqualTo("ran");
    }

    /**
     * The method's Mono is cancelled first and its cancel clean-up runs to its end, then the lock (the permit) is
     * released: another client's attempt made inside that clean-up never gets in. Before dlock-reactor's hold scope
     * ran the release after the cancel, it got in 5 of 5 times for the lock.
     */
    @Test
    void aCancelReleasesOnlyAfterTheMethodsPublisherCleanedUp(LockClient observer) {
        int rounds = 5;
        AtomicInteger gotIn = new AtomicInteger();
        DistributedLock theirs = observer.getLock("rx:cleanup");
        LeasedSemaphore theirPermits = observer.getLeasedSemaphore("rx:limit-cleanup");
        for (int i = 0; i < rounds; i++) {
            int round = i;
            shared.cleanUp = () -> {
                if (theirs.tryLock()) {
                    gotIn.incrementAndGet();
                    theirs.unlock();
                }
            };
            Disposable locked = a.cleansUpOnCancel().subscribe();
            Await.until(TIMEOUT, () -> shared.runs.get() == 2 * round + 1, "the locked method runs");
            locked.dispose();
            Await.until(TIMEOUT, () -> !theirs.isLocked(), "released after the cancel");

            shared.cleanUp = () -> theirPermits.tryAcquire().ifPresent(permit -> {
                gotIn.incrementAndGet();
                permit.release();
            });
            Disposable limited = a.limitedCleansUpOnCancel().subscribe();
            Await.until(TIMEOUT, () -> shared.runs.get() == 2 * round + 2, "the limited method runs");
            limited.dispose();
            Await.until(TIMEOUT, () -> theirPermits.availablePermits() == 1, "the permit back after the cancel");
        }
        assertThat(gotIn).as("attempts that got in during the cancel clean-up of " + rounds + " locked and "
                + rounds + " limited calls").hasValue(0);
    }

    @Test
    void anErrorReleasesAndReachesTheSubscriber(LockClient observer) {
        assertThatThrownBy(() -> a.fails().block(TIMEOUT)).isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
        Await.until(TIMEOUT, () -> !observer.getLock("rx:fails").isLocked(), "released on error");
        assertThatThrownBy(() -> b.fails().block(TIMEOUT)).as("the next call acquires").hasMessage("boom");

        Flux<String> thrown = a.throwsAtOnce();
        assertThatThrownBy(() -> thrown.blockLast(TIMEOUT)).as("a throw of the method is the error signal")
                .isInstanceOf(IllegalArgumentException.class).hasMessage("thrown by the method");
        assertThat(observer.getLock("rx:throws").isLocked()).isFalse();
    }

    @Test
    void eachSubscriptionAcquiresForItself(LockClient observer) {
        Mono<String> once = a.tryOnce("twice");
        assertThat(once.block(TIMEOUT)).isEqualTo("ran");
        assertThat(once.block(TIMEOUT)).isEqualTo("ran");
        assertThat(shared.runs).as("subscribed twice, the method ran twice").hasValue(2);

        Mono<String> gated = a.fencedGated("twice-fenced");
        Disposable first = gated.subscribe();
        Await.until(TIMEOUT, () -> observer.getLock("rx:twice-fenced").isLocked(), "the first subscription holds");
        assertThat(observer.inspect("rx:twice-fenced").holders()).as("one holder").hasSize(1);
        assertThatThrownBy(() -> a.tryOnce("twice-fenced").block(TIMEOUT))
                .as("the same lock name, another subscription: not reentrant")
                .isInstanceOf(LockBusyException.class);
        shared.gate.tryEmitEmpty();
        Await.until(TIMEOUT, () -> !observer.getLock("rx:twice-fenced").isLocked(), "released");
        first.dispose();

        shared.gate = Sinks.empty();
        List<String> results = new CopyOnWriteArrayList<>();
        gated.subscribe(results::add);
        Await.until(TIMEOUT, () -> observer.getLock("rx:twice-fenced").isLocked(),
                "the same Mono subscribed again acquires again");
        shared.gate.tryEmitEmpty();
        Await.until(TIMEOUT, () -> results.size() == 1, "completed");
        Await.until(TIMEOUT, () -> !observer.getLock("rx:twice-fenced").isLocked(), "released again");
    }

    @Test
    void theConcurrencyLimitOfAMonoNeverLetsMoreRun(LockClient observer) {
        List<Integer> done = Flux.range(0, 16).flatMap(i -> i % 2 == 0 ? a.limited() : b.limited(), 16)
                .collectList().block(TIMEOUT);
        assertThat(done).hasSize(16);
        assertThat(shared.maxRunning).as("at most 2 at once").hasValueBetween(1, 2);
        assertThat(observer.getLeasedSemaphore("rx:limit").availablePermits()).isEqualTo(2);
    }

    @Test
    void aBusyLimitFailsOrSkipsAndACancelGivesThePermitBack(LockClient observer) {
        Disposable holding = a.limitedGated().subscribe();
        Await.until(TIMEOUT, () -> shared.runs.get() == 1, "the first call runs");
        assertThat(observer.getLeasedSemaphore("rx:limit-gate").availablePermits()).isZero();
        assertThatThrownBy(() -> b.limitedGated().block(TIMEOUT)).isInstanceOf(ConcurrencyLimitReachedException.class)
                .hasMessageContaining("semaphore 'rx:limit-gate'");
        assertThat(shared.runs).hasValue(1);
        holding.dispose();
        Await.until(TIMEOUT, () -> observer.getLeasedSemaphore("rx:limit-gate").availablePermits() == 1,
                "the cancel gave the permit back");
    }

    @Test
    void aLimitAndALockOnOneFlux(LockClient observer) {
        List<Integer> done = Flux.range(0, 6).flatMap(i -> i % 2 == 0 ? a.limitedAndLocked() : b.limitedAndLocked())
                .collectList().block(TIMEOUT);
        assertThat(done).hasSize(12);
        assertThat(shared.maxRunning).as("the lock inside the permit").hasValue(1);
        assertThat(observer.getLeasedSemaphore("rx:both").availablePermits()).isEqualTo(3);
        assertThat(observer.getLock("rx:both-lock").isLocked()).isFalse();
    }

    public static class MinHoldOnMono {
        @DistributedLocked(name = "rx:min-hold", minHoldTime = "1s")
        public Mono<String> run() {
            return Mono.just("x");
        }
    }

    public static class ReturnsPublisher {
        @DistributedLocked(name = "rx:publisher")
        public Publisher<String> run() {
            return Mono.just("x");
        }
    }

    public static class LimitReturnsPublisher {
        @DistributedConcurrencyLimit(name = "rx:publisher", permits = 1)
        public Publisher<String> run() {
            return Mono.just("x");
        }
    }

    @Test
    void refusedAtStartUp(RedisServer redis) {
        DistributedLockedIT.assertStartupFails(redis, MinHoldOnMono.class, "MinHoldOnMono.run()",
                "minHoldTime \"1s\" is not supported on a method returning reactor.core.publisher.Mono");
        DistributedLockedIT.assertStartupFails(redis, ReturnsPublisher.class, "ReturnsPublisher.run()",
                "returns org.reactivestreams.Publisher");
        assertThat(Instances.startupFailure(redis.uri(), LimitReturnsPublisher.class))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedConcurrencyLimit on LimitReturnsPublisher.run()")
                .hasMessageContaining("returns org.reactivestreams.Publisher");
    }
}
