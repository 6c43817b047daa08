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
 * held; see below for a semaphore gone from Redis) → run the body → check the returned object (a deferred result fails
 * the call while the permit is held, see {@link DeferredResults}) → give the permit back, also after the body threw →
 * return or rethrow. A permit whose lease had ended ({@link Permit#release()} answered false) fails the call with
 * {@link LockLostException} after a successful body, or is added as suppressed to the body's exception, as is a failed
 * release.
 *
 * <p><b>A semaphore gone from Redis</b> (restarted without persistence, failed over without it, deleted) has no
 * permits, so waiting on it alone would refuse every call, or hang a {@code waitTime = "forever"} call, until the
 * application restarts. So the wait is taken in slices of at most {@link #GONE_CHECK}: after each slice that brought
 * no permit, one call ({@link SemaphorePermitCounts#restoreIfGone}) sets the semaphore up again if it does not exist,
 * and the acquisition goes on at once with the time left (at least one more attempt). A call is refused as busy
 * only when that check found the semaphore in Redis, so the message that all permits are taken is true when written.
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
        /**
         * @param invocation the call to run: the intercepted one, or for a Mono or Flux method a copy of it per
         *                   subscription ({@link ReactiveCalls})
         */
        Object run(MethodInvocation invocation) throws Throwable;
    }

    /**
     * The longest a call waits for a permit before it checks that the semaphore still exists (a slice of a longer
     * wait): how long a call waiting without limit may hang after Redis lost the semaphore.
     */
    static final Duration GONE_CHECK = Duration.ofSeconds(1);

    /** Per thread, the number of calls in progress per semaphore name; removed when empty. */
    private static final ThreadLocal<Map<String, Integer>> HELD = new ThreadLocal<>();

    private final Supplier<? extends LockClient> client;
    private final SemaphorePermitCounts counts = new SemaphorePermitCounts();

    LimitedMethodInterceptor(Supplier<? extends LockClient> client) {
        this.client = client;
    }

    Object invoke(MethodInvocation invocation, Class<?> targetClass, LimitedMethod spec, BeanFactory beanFactory,
                  Body body) throws Throwable {
        if (spec.reactive() != null) {
            return ReactiveCalls.limited(client.get(), counts, invocation, spec, targetClass, beanFactory, body);
        }
        String name = spec.name().evaluate(invocation.getArguments(), invocation.getThis(), targetClass, beanFactory);
        if (isHeld(name)) {
            return run(invocation, name, spec, body);
        }
        LeasedSemaphore semaphore = client.get().getLeasedSemaphore(name);
        counts.ensure(semaphore, spec.permits(), spec.description());
        Optional<Permit> permit = acquire(semaphore, spec, counts);
        if (permit.isEmpty()) {
            return busy(spec, name, null);
        }
        Object result;
        try {
            result = run(invocation, name, spec, body);
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

    private static Object run(MethodInvocation invocation, String name, LimitedMethod spec, Body body)
            throws Throwable {
        enter(name);
        try {
            Object result = body.run(invocation);
            refuseDeferred(result, spec);
            return result;
        } finally {
            leave(name);
        }
    }

    /**
     * Waits for a permit in slices of at most {@link #GONE_CHECK}, setting the semaphore up again whenever a slice
     * ends without a permit and the semaphore is gone.
     *
     * @return the permit, or empty when none came within the wait time and the semaphore exists
     */
    private static Optional<Permit> acquire(LeasedSemaphore semaphore, LimitedMethod spec,
                                            SemaphorePermitCounts counts) {
        Duration wait = spec.waitTime();
        long deadline = wait == null ? 0 : System.nanoTime() + wait.toNanos();
        try {
            while (true) {
                Duration left = wait == null ? GONE_CHECK
                        : Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                Duration slice = left.compareTo(GONE_CHECK) > 0 ? GONE_CHECK : left;
                Optional<Permit> permit = semaphore.tryAcquire(slice, spec.leaseTime());
                if (permit.isPresent()) {
                    return permit;
                }
                boolean restored = counts.restoreIfGone(semaphore, spec.permits(), spec.description());
                if (restored && slice.equals(left) && wait != null) {
                    // the wait is over, but the semaphore was only just set up again: one more attempt
                    return semaphore.tryAcquire(Duration.ZERO, spec.leaseTime());
                }
                if (!restored && wait != null && slice.equals(left)) {
                    return Optional.empty();
                }
            }
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
        throw busyException(spec, name, interrupted);
    }

    /** @return the failure of a call that got no permit (the method did not run) */
    static ConcurrencyLimitReachedException busyException(LimitedMethod spec, String name,
                                                          InterruptedException interrupted) {
        Duration wait = spec.waitTime();
        String why = interrupted != null ? "the thread was interrupted while waiting for one"
                : wait == null ? "none came" : wait.isZero() ? "none was free at one attempt"
                : "none came within " + wait;
        return new ConcurrencyLimitReachedException(name, spec.permits(), wait, "@DistributedConcurrencyLimit on "
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
