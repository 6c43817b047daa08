package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.Permit;
import io.dlock.reactor.ReactiveHold;
import io.dlock.reactor.ReactiveLeasedSemaphore;
import io.dlock.reactor.ReactiveLock;
import io.dlock.reactor.ReactiveLockClient;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;

/**
 * {@link DistributedLocked} and {@link DistributedConcurrencyLimit} calls of methods that return Reactor's
 * {@code Mono} or {@code Flux} ({@link ReactiveResult}): the call returns at once a deferred publisher of the same
 * type, and <b>each subscription</b> to it acquires (for an owner of its own, through dlock-reactor), then runs the
 * method and subscribes to the publisher it returned, and releases when that publisher completes, fails or is
 * cancelled ({@link ReactiveLock#using}, {@link ReactiveLeasedSemaphore#using}: once, on every path). A Mono
 * subscribed twice runs the method twice, each time under an acquisition of its own.
 *
 * <p>Mapping of the attributes: the lock name (or semaphore name) is evaluated when the method is called, with the
 * call's arguments (a failure is the publisher's error signal); {@code waitTime} and {@code leaseTime} are those of
 * the acquisition; a lock or permit still busy after the wait is the error signal {@link LockBusyException}
 * ({@link ConcurrencyLimitReachedException}) under {@link WhenBusy#THROW}, and an empty completion under
 * {@link WhenBusy#SKIP}, the method not called. There is no nesting by thread here: the holder is the subscription.
 *
 * <p>Loaded only for such methods, so only when Reactor and dlock-reactor are on the class path. Stateless.
 */
final class ReactiveCalls {
    private ReactiveCalls() {
    }

    /** @return the Mono or Flux of a {@link DistributedLocked} call */
    static Object locked(LockClient client, MethodInvocation invocation, LockedMethod spec, Object target,
                         Class<?> targetClass, BeanFactory beanFactory) {
        String name;
        try {
            name = spec.name().evaluate(invocation.getArguments(), target, targetClass, beanFactory);
        } catch (RuntimeException e) {
            return typed(Flux.error(e), spec.reactive());
        }
        Flux<Object> calls = Flux.defer(() -> {
            ReactiveLock lock = lock(ReactiveLockClient.of(client), spec, name);
            Duration lease = spec.leaseTime();
            Duration wait = spec.waitTime();
            Mono<ReactiveHold> acquisition = wait == null
                    ? lease == null ? lock.lock() : lock.lock(lease)
                    : lease == null ? lock.tryLock(wait) : lock.tryLock(wait, lease);
            if (spec.whenBusy() == WhenBusy.THROW) {
                acquisition = acquisition.switchIfEmpty(
                        Mono.error(() -> LockedMethodInterceptor.busyException(spec, name)));
            }
            return ReactiveLock.using(acquisition, hold -> proceed(copy(invocation), spec.description()));
        });
        return typed(calls, spec.reactive());
    }

    /**
     * @param body the lock interception inside the permit (or the method), given a copy of the call per
     *             subscription
     * @return the Mono or Flux of a {@link DistributedConcurrencyLimit} call
     */
    static Object limited(LockClient client, SemaphorePermitCounts counts, MethodInvocation invocation,
                          LimitedMethod spec, Class<?> targetClass, BeanFactory beanFactory,
                          LimitedMethodInterceptor.Body body) {
        String name;
        try {
            name = spec.name().evaluate(invocation.getArguments(), invocation.getThis(), targetClass, beanFactory);
        } catch (RuntimeException e) {
            return typed(Flux.error(e), spec.reactive());
        }
        Flux<Object> calls = Flux.defer(() -> {
            LeasedSemaphore core = client.getLeasedSemaphore(name);
            ReactiveLeasedSemaphore semaphore = ReactiveLockClient.of(client).getLeasedSemaphore(name);
            // the permit count is set once per name and number; the first time with the blocking calls, off the
            // subscriber's thread
            Mono<Void> ensured = counts.isEnsured(name, spec.permits()) ? Mono.empty()
                    : Mono.<Void>fromRunnable(() -> counts.ensure(core, spec.permits(), spec.description()))
                    .subscribeOn(Schedulers.boundedElastic());
            long deadline = spec.waitMs() == DistributedLock.WAIT_FOREVER ? 0
                    : System.nanoTime() + Duration.ofMillis(spec.waitMs()).toNanos();
            Mono<Permit> acquisition = ensured.then(Mono.defer(() -> acquire(semaphore, core, counts, spec, deadline)));
            if (spec.whenBusy() == WhenBusy.THROW) {
                acquisition = acquisition.switchIfEmpty(
                        Mono.error(() -> LimitedMethodInterceptor.busyException(spec, name, null)));
            }
            return ReactiveLeasedSemaphore.using(acquisition, permit -> {
                Object result;
                try {
                    result = body.run(copy(invocation));
                } catch (Throwable e) {
                    return Flux.error(e);
                }
                return publisher(result, spec.description());
            });
        });
        return typed(calls, spec.reactive());
    }

    /**
     * Waits for a permit in slices of at most {@link LimitedMethodInterceptor#GONE_CHECK}, as the synchronous path
     * does: after a slice without a permit, a semaphore gone from Redis is set up again (the check blocks, so it
     * runs on Reactor's bounded elastic scheduler) and the wait goes on with the time left.
     *
     * @param deadline {@link System#nanoTime()} at which the wait ends; ignored without a wait limit
     * @return emits the permit, or completes empty when none came within the wait and the semaphore exists
     */
    private static Mono<Permit> acquire(ReactiveLeasedSemaphore semaphore, LeasedSemaphore core,
                                        SemaphorePermitCounts counts, LimitedMethod spec, long deadline) {
        boolean forever = spec.waitMs() == DistributedLock.WAIT_FOREVER;
        Duration gone = LimitedMethodInterceptor.GONE_CHECK;
        Duration left = forever ? gone : Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        Duration slice = left.compareTo(gone) > 0 ? gone : left;
        boolean last = !forever && slice.equals(left);
        return attempt(semaphore, spec, slice).switchIfEmpty(Mono.defer(() ->
                Mono.fromCallable(() -> counts.restoreIfGone(core, spec.permits(), spec.description()))
                        .subscribeOn(Schedulers.boundedElastic())
                        .flatMap(restored -> {
                            if (last) {
                                // the wait is over; a semaphore only just set up again gets one more attempt
                                return restored ? attempt(semaphore, spec, Duration.ZERO) : Mono.empty();
                            }
                            return acquire(semaphore, core, counts, spec, deadline);
                        })));
    }

    private static Mono<Permit> attempt(ReactiveLeasedSemaphore semaphore, LimitedMethod spec, Duration wait) {
        Duration lease = spec.leaseTime();
        return lease == null ? semaphore.tryAcquire(wait) : semaphore.tryAcquire(wait, lease);
    }

    private static ReactiveLock lock(ReactiveLockClient client, LockedMethod spec, String name) {
        return switch (spec.kind()) {
            case PLAIN -> client.getLock(name);
            case FAIR -> client.getFairLock(name);
            case FENCED -> client.getFencedLock(name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
        };
    }

    /**
     * A copy of the intercepted call that can proceed once more through the interceptors after this one (Spring's
     * invocations proceed once: the copy keeps the original's position in the chain and its own arguments array).
     */
    private static MethodInvocation copy(MethodInvocation invocation) {
        return invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    }

    /** Runs the method (or the next interceptor) and returns its publisher; a throw is the error signal. */
    private static Publisher<Object> proceed(MethodInvocation invocation, String description) {
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable e) {
            return Flux.error(e);
        }
        return publisher(result, description);
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> publisher(Object result, String description) {
        if (result == null) {
            return Flux.error(new NullPointerException(description + " returned null instead of a Mono or Flux"));
        }
        return (Publisher<Object>) result;
    }

    /**
     * @return {@code calls} as the method's declared type. A Mono emits its value when the method's Mono has
     *         completed and the release is done, so that a subscriber that goes on with the value (or {@code block()}
     *         returning it) never finds its own hold still there; a Flux emits each element while the hold lasts and
     *         completes after the release.
     */
    private static Object typed(Flux<Object> calls, ReactiveResult type) {
        return type == ReactiveResult.MONO ? calls.singleOrEmpty() : calls;
    }
}
