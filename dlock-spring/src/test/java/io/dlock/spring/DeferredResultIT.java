package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import io.reactivex.rxjava3.core.Observable;
import io.reactivex.rxjava3.core.Single;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
import reactor.core.publisher.Flux;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static io.dlock.spring.DistributedLockedIT.assertStartupFails;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link DistributedLocked} method releases its lock when it returns, so a result whose work runs later would run
 * unlocked: such methods are refused when the proxy is created (by declared type), and a call that returns such an
 * object through a wider declared type fails, with the work cancelled or dropped, before the lock is released.
 */
@ExtendWith(RedisExtension.class)
class DeferredResultIT {

    /** Returns deferred work through {@code Object}; records what became of it. */
    public static class Loose {
        final ExecutorService pool = Executors.newSingleThreadExecutor();
        final CountDownLatch poolFree = new CountDownLatch(1);
        final AtomicInteger workRan = new AtomicInteger();
        final AtomicReference<Boolean> lockedWhenCancelled = new AtomicReference<>();
        LockClient observer;

        /** The future's work is queued behind a blocked task, so it has not started when the method returns. */
        @DistributedLocked(name = "deferred:future")
        public Object future() {
            pool.execute(() -> await(poolFree));
            CompletableFuture<String> work = CompletableFuture.supplyAsync(() -> {
                workRan.incrementAndGet();
                return "done";
            }, pool);
            work.whenComplete((value, error) ->
                    lockedWhenCancelled.set(observer.getLock("deferred:future").isLocked()));
            return work;
        }

        @DistributedLocked(name = "deferred:callable")
        public Object callable() {
            return (Callable<String>) () -> {
                workRan.incrementAndGet();
                return "done";
            };
        }

        @DistributedLocked(name = "deferred:publisher")
        public Object publisher() {
            return new SubmissionPublisher<String>();
        }

        @DistributedLocked(name = "deferred:optional")
        public Optional<?> optionalFuture() {
            return Optional.of(new CompletableFuture<String>());
        }

        @DistributedLocked(name = "deferred:plain")
        public Object plainValue() {
            return List.of("a", "b");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import(Loose.class)
    public static class LooseConfig {
    }

    private Instances instances;
    private Loose loose;
    private Loose target;

    @BeforeEach
    void start(RedisServer redis, LockClient observer) throws Exception {
        instances = new Instances(redis.uri());
        loose = instances.start(List.of(), LooseConfig.class).getBean(Loose.class);
        target = (Loose) ((org.springframework.aop.framework.Advised) loose).getTargetSource().getTarget();
        target.observer = observer;
    }

    @AfterEach
    void stop() throws InterruptedException {
        target.poolFree.countDown();
        target.pool.shutdownNow();
        assertThat(target.pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        instances.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aFutureReturnedAsObjectFailsTheCallAndIsCancelledBeforeTheRelease(LockClient observer) throws Exception {
        assertThatThrownBy(() -> loose.future())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedLocked on Loose.future()")
                .hasMessageContaining("returned a java.util.concurrent.CompletableFuture")
                .hasMessageContaining("it was cancelled");
        assertThat(target.lockedWhenCancelled.get()).as("the lock was still held when the future was cancelled")
                .isTrue();
        assertThat(observer.getLock("deferred:future").isLocked()).as("released after the failure").isFalse();

        target.poolFree.countDown();
        target.pool.shutdown();
        assertThat(target.pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(target.workRan.get()).as("the queued work never ran (unlocked)").isZero();
    }

    @Test
    void aCallableOrAPublisherReturnedAsObjectFailsTheCallAndNeverRuns(LockClient observer) {
        assertThatThrownBy(() -> loose.callable())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedLocked on Loose.callable()")
                .hasMessageContaining("it was dropped");
        assertThat(target.workRan.get()).isZero();
        assertThat(observer.getLock("deferred:callable").isLocked()).isFalse();

        assertThatThrownBy(() -> loose.publisher())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("returned a java.util.concurrent.SubmissionPublisher");
        assertThat(observer.getLock("deferred:publisher").isLocked()).isFalse();

        assertThatThrownBy(() -> loose.optionalFuture())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("returned a java.util.concurrent.CompletableFuture");
    }

    @Test
    void anOrdinaryValueReturnedAsObjectPasses(LockClient observer) {
        assertThat(loose.plainValue()).isEqualTo(List.of("a", "b"));
        assertThat(observer.getLock("deferred:plain").isLocked()).isFalse();
    }

    // ---- refused by declared type when the proxy is created ----

    public static class ReturnsCallable {
        @DistributedLocked(name = "x")
        public Callable<String> run() {
            return () -> "x";
        }
    }

    public static class ReturnsFlowPublisher {
        @DistributedLocked(name = "x")
        public Flow.Publisher<String> run() {
            return new SubmissionPublisher<>();
        }
    }

    public static class ReturnsDeferredResult {
        @DistributedLocked(name = "x")
        public DeferredResult<String> run() {
            return new DeferredResult<>();
        }
    }

    public static class ReturnsWebAsyncTask {
        @DistributedLocked(name = "x")
        public WebAsyncTask<String> run() {
            return new WebAsyncTask<>(() -> "x");
        }
    }

    public static class ReturnsEmitter {
        @DistributedLocked(name = "x")
        public ResponseBodyEmitter run() {
            return new ResponseBodyEmitter();
        }
    }

    public static class ReturnsSseEmitter {
        @DistributedLocked(name = "x")
        public SseEmitter run() {
            return new SseEmitter();
        }
    }

    public static class ReturnsStreamingBody {
        @DistributedLocked(name = "x")
        public ResponseEntity<StreamingResponseBody> run() {
            return ResponseEntity.ok(out -> out.write(1));
        }
    }

    public static class ReturnsEntityOfFlux {
        @DistributedLocked(name = "x")
        public ResponseEntity<Flux<String>> run() {
            return ResponseEntity.ok(Flux.just("x"));
        }
    }

    public static class ReturnsSingle {
        @DistributedLocked(name = "x")
        public Single<String> run() {
            return Single.just("x");
        }
    }

    public static class ReturnsObservable {
        @DistributedLocked(name = "x")
        public Observable<String> run() {
            return Observable.just("x");
        }
    }

    public static class ReturnsStream {
        @DistributedLocked(name = "x")
        public Stream<String> run() {
            return Stream.of("x");
        }
    }

    public static class ReturnsIterator {
        @DistributedLocked(name = "x")
        public Iterator<String> run() {
            return List.of("x").iterator();
        }
    }

    public static class ReturnsListOfFutures {
        @DistributedLocked(name = "x")
        public List<Future<String>> run() {
            return List.of();
        }
    }

    public static class ReturnsMapOfStages {
        @DistributedLocked(name = "x")
        public Map<String, CompletableFuture<String>> run() {
            return Map.of();
        }
    }

    public static class ReturnsOptionalCallable {
        @DistributedLocked(name = "x")
        public Optional<Callable<String>> run() {
            return Optional.empty();
        }
    }

    /** Synchronous results, also holders of plain values, are accepted. */
    public static class Synchronous {
        @DistributedLocked(name = "sync:entity")
        public ResponseEntity<String> entity() {
            return ResponseEntity.ok("x");
        }

        @DistributedLocked(name = "sync:list")
        public Optional<List<String>> list() {
            return Optional.of(List.of("x"));
        }

        @DistributedLocked(name = "sync:array")
        public String[] array() {
            return new String[] {"x"};
        }
    }

    @Test
    void deferredReturnTypesFailTheStartUpNamingTheMethodAndTheType(RedisServer redis) {
        assertStartupFails(redis, ReturnsCallable.class, "ReturnsCallable.run()",
                "returns java.util.concurrent.Callable, whose work may go on after the method returned");
        assertStartupFails(redis, ReturnsFlowPublisher.class, "ReturnsFlowPublisher.run()",
                "returns java.util.concurrent.Flow$Publisher");
        assertStartupFails(redis, ReturnsDeferredResult.class, "ReturnsDeferredResult.run()",
                "returns " + DeferredResult.class.getName());
        assertStartupFails(redis, ReturnsWebAsyncTask.class, "ReturnsWebAsyncTask.run()",
                "returns " + WebAsyncTask.class.getName());
        assertStartupFails(redis, ReturnsEmitter.class, "ReturnsEmitter.run()",
                "returns " + ResponseBodyEmitter.class.getName());
        assertStartupFails(redis, ReturnsSseEmitter.class, "ReturnsSseEmitter.run()",
                "returns " + SseEmitter.class.getName());
        assertStartupFails(redis, ReturnsStreamingBody.class, "ReturnsStreamingBody.run()",
                "returns " + ResponseEntity.class.getName() + "<" + StreamingResponseBody.class.getName() + ">");
        assertStartupFails(redis, ReturnsEntityOfFlux.class, "ReturnsEntityOfFlux.run()",
                "returns " + ResponseEntity.class.getName() + "<" + Flux.class.getName() + ">");
        assertStartupFails(redis, ReturnsSingle.class, "ReturnsSingle.run()", "returns " + Single.class.getName());
        assertStartupFails(redis, ReturnsObservable.class, "ReturnsObservable.run()",
                "returns " + Observable.class.getName());
        assertStartupFails(redis, ReturnsStream.class, "ReturnsStream.run()", "returns java.util.stream.Stream");
        assertStartupFails(redis, ReturnsIterator.class, "ReturnsIterator.run()", "returns java.util.Iterator");
        assertStartupFails(redis, ReturnsListOfFutures.class, "ReturnsListOfFutures.run()",
                "returns java.util.List<java.util.concurrent.Future>");
        assertStartupFails(redis, ReturnsMapOfStages.class, "ReturnsMapOfStages.run()",
                "returns java.util.Map<java.util.concurrent.CompletableFuture>");
        assertStartupFails(redis, ReturnsOptionalCallable.class, "ReturnsOptionalCallable.run()",
                "returns java.util.Optional<java.util.concurrent.Callable>");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableDistributedLocking
    @Import(Synchronous.class)
    public static class SynchronousConfig {
    }

    @Test
    void synchronousHoldersOfPlainValuesAreAccepted(RedisServer redis) {
        try (Instances more = new Instances(redis.uri())) {
            Synchronous bean = more.start(List.of(), SynchronousConfig.class).getBean(Synchronous.class);
            assertThat(bean.entity().getBody()).isEqualTo("x");
            assertThat(bean.list()).contains(List.of("x"));
            assertThat(bean.array()).containsExactly("x");
        }
    }
}
