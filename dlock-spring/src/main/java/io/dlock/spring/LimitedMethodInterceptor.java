package io.dlock.spring;

import io.dlock.LeasedSemaphore;
import io.dlock.LockClient;
import io.dlock.LockLostException;
import io.dlock.Permit;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.beans.factory.BeanFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Runs one {@link DistributedConcurrencyLimit} call under one permit of its semaphore.
 *
 * <p><b>Order of events:</b> evaluate the name (fails: nothing acquired) → make sure the semaphore has its permits
 * ({@link SemaphorePermitCounts}) → acquire one permit within the wait time (none: throw or skip; interrupted: nothing
 * held) → run the body → check the returned object (a deferred result fails the call while the permit is held, see
 * {@link DeferredResults}) → give the permit back, also after the body threw → return or rethrow. A permit whose
 * lease had ended ({@link Permit#release()} answered false) fails the call with {@link LockLostException} after a
 * successful body, or is added as suppressed to the body's exception, as is a failed release.
 *
 * <p><b>Nested calls:</b> per thread, the semaphore names of the calls in progress ({@link #HELD}); a call of a name
 * the thread is already inside runs in the outer call's permit.
 *
 * <p>Thread-safe; the calling thread blocks only while acquiring (up to the wait time) and releasing (one round
 * trip).
 */
final class LimitedMethodInterceptor {
    /** The body a permit covers: the method, or the next dlock interception of it. */
    @FunctionalInterface
    interface Body {
        Object run() throws Throwable;
    }

    /** Per thread, the number of calls in progress per semaphore name; removed when empty. */
    private static final ThreadLocal<Map<String, Integer>> HELD = new ThreadLocal<>();

    private final Supplier<? extends LockClient> client;
    private final SemaphorePermitCounts counts = new SemaphorePermitCounts();

    LimitedMethodInterceptor(Supplier<? extends LockClient> client) {
        this.client = client;
    }

    Object invoke(MethodInvocation invocation, Class<?> targetClass, LimitedMethod spec, BeanFactory beanFactory,
                  Body body) throws Throwable {
        String name = spec.name().evaluate(invocation.getArguments(), invocation.getThis(), targetClass, beanFactory);
        if (isHeld(name)) {
            return run(name, spec, body);
        }
        LeasedSemaphore semaphore = client.get().getLeasedSemaphore(name);
        counts.ensure(semaphore, spec.permits(), spec.description());
        Optional<Permit> permit = acquire(semaphore, spec);
        if (permit.isEmpty()) {
            return busy(spec, name, null);
        }
        Object result;
        try {
            result = run(name, spec, body);
        } catch (Throwable failure) {
            try {
                release(permit.get(), spec);
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        release(permit.get(), spec);
        return result;
    }

    private static Object run(String name, LimitedMethod spec, Body body) throws Throwable {
        enter(name);
        try {
            Object result = body.run();
            refuseDeferred(result, spec);
            return result;
        } finally {
            leave(name);
        }
    }

    private static Optional<Permit> acquire(LeasedSemaphore semaphore, LimitedMethod spec) {
        try {
            if (spec.waitTime() == null) {
                return Optional.of(spec.leaseTime() == null ? semaphore.acquire()
                        : semaphore.acquire(spec.leaseTime()));
            }
            return semaphore.tryAcquire(spec.waitTime(), spec.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (ConcurrencyLimitReachedException) busy(spec, semaphore.getName(), e);
        }
    }

    /** @return the skip value; or throws (always, when {@code interrupted} is given) */
    private static Object busy(LimitedMethod spec, String name, InterruptedException interrupted) {
        if (interrupted == null && spec.whenBusy() == WhenBusy.SKIP) {
            return spec.skipValue();
        }
        Duration wait = spec.waitTime();
        String why = interrupted != null ? "the thread was interrupted while waiting for one"
                : wait == null ? "none came" : wait.isZero() ? "none was free at one attempt"
                : "none came within " + wait;
        throw new ConcurrencyLimitReachedException(name, spec.permits(), wait, "@DistributedConcurrencyLimit on "
                + spec.description() + ": all " + spec.permits() + " permits of semaphore '" + name
                + "' are taken and " + why + "; the method did not run", interrupted);
    }

    private static void release(Permit permit, LimitedMethod spec) {
        if (!permit.release()) {
            throw new LockLostException(permit.semaphoreName(), "@DistributedConcurrencyLimit on "
                    + spec.description() + ": the lease of permit " + permit.id() + " of semaphore '"
                    + permit.semaphoreName() + "' ended before the method returned, so more than " + spec.permits()
                    + " calls may have run at once (a fixed leaseTime too short for the method, renewals that "
                    + "failed, or the semaphore was deleted or changed)");
        }
    }

    /** Fails a call whose method returned deferred work, while its permit is still held (see DeferredResults). */
    private static void refuseDeferred(Object result, LimitedMethod spec) {
        DeferredResults.refuse(result, LimitedMethod.LABEL + " on " + spec.description(), "permit");
    }

    private static boolean isHeld(String name) {
        Map<String, Integer> held = HELD.get();
        return held != null && held.containsKey(name);
    }

    private static void enter(String name) {
        Map<String, Integer> held = HELD.get();
        if (held == null) {
            held = new HashMap<>();
            HELD.set(held);
        }
        held.merge(name, 1, Integer::sum);
    }

    private static void leave(String name) {
        Map<String, Integer> held = HELD.get();
        if (held.merge(name, -1, Integer::sum) == 0) {
            held.remove(name);
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }
}
