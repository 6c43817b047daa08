package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Runs one {@link DistributedLocked} call under its lock.
 *
 * <h2>One call, one owner</h2>
 * Each call acquires with an owner id of its own (negative, so never a thread id of the sync API), through the async
 * methods' explicit owner. So the release can be sent by another thread (the {@link MinimumHoldReleaser}), and a hold
 * kept for its minimum time is not re-entered by the next call of the same thread. Nested calls on one thread for
 * the same lock name and kind run inside the outer hold ({@link #HELD}) instead of waiting for themselves.
 *
 * <h2>Order of events</h2>
 * evaluate the name (fails: nothing acquired) → acquire within the wait time (busy: throw or skip; interrupted:
 * nothing left behind) → run the method → release at once, or schedule the release when the minimum hold is not over
 * (also after the method threw) → return or rethrow the method's outcome. A failed release (the lease was lost, or
 * Redis failed) is thrown after a successful method, or added as suppressed to the method's exception.
 *
 * <p>Thread-safe; the calling thread blocks only while acquiring (up to the wait time) and releasing (one round trip).
 */
final class LockedMethodInterceptor implements MethodInterceptor {
    /** Owner ids of calls: negative, so they never meet the thread ids that the sync API uses as owners. */
    private static final AtomicLong NEXT_OWNER = new AtomicLong(Long.MIN_VALUE);

    /** Per thread, "kind:name" of the locks held by the thread's calls in progress; removed when empty. */
    private static final ThreadLocal<Set<String>> HELD = new ThreadLocal<>();

    private final Supplier<? extends LockClient> client;
    private final LockedMethods methods;
    private final MinimumHoldReleaser releaser;
    private volatile BeanFactory beanFactory;

    LockedMethodInterceptor(Supplier<? extends LockClient> client, LockedMethods methods,
                            MinimumHoldReleaser releaser) {
        this.client = client;
        this.methods = methods;
        this.releaser = releaser;
    }

    void beanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** @return the client (resolving it when it comes from a supplier) */
    LockClient client() {
        return client.get();
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        LockedMethod spec = methods.find(invocation.getMethod(), targetClass);
        if (spec == null) {
            return invocation.proceed();
        }
        String name = spec.name().evaluate(invocation.getMethod(), invocation.getArguments(), target, targetClass,
                beanFactory);
        String heldKey = spec.kind() + ":" + name;
        Set<String> held = HELD.get();
        if (held != null && held.contains(heldKey)) {
            return invocation.proceed();
        }
        DistributedLock lock = client.get().getLock(spec.kind(), name);
        long owner = NEXT_OWNER.getAndIncrement();
        if (!acquire(lock, owner, spec)) {
            return busy(spec, name);
        }
        long acquiredAt = System.nanoTime();
        enter(heldKey);
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable methodFailure) {
            leave(heldKey);
            try {
                release(lock, owner, acquiredAt, spec);
            } catch (RuntimeException releaseFailure) {
                methodFailure.addSuppressed(releaseFailure);
            }
            throw methodFailure;
        }
        leave(heldKey);
        release(lock, owner, acquiredAt, spec);
        return result;
    }

    /**
     * @return whether {@code owner} now holds the lock
     * @throws LockBusyException when interrupted (nothing is left held; the interrupt flag is set again)
     */
    private boolean acquire(DistributedLock lock, long owner, LockedMethod spec) {
        CompletableFuture<Boolean> acquired = lock.tryLockAsync(spec.waitMs(), spec.leaseMs(),
                TimeUnit.MILLISECONDS, owner);
        try {
            return acquired.get();
        } catch (InterruptedException e) {
            acquired.cancel(false);
            // the acquisition may have completed just before the cancel: then nobody else would release it
            if (!acquired.isCancelled() && Boolean.TRUE.equals(acquired.getNow(false))) {
                lock.unlockAsync(owner);
            }
            Thread.currentThread().interrupt();
            throw new LockBusyException(lock.getName(), spec.waitTime(), "lock '" + lock.getName() + "' for "
                    + spec.description() + ": interrupted while waiting for it; the method did not run", e);
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        }
    }

    private Object busy(LockedMethod spec, String name) {
        if (spec.whenBusy() == WhenBusy.SKIP) {
            return spec.skipValue();
        }
        Duration wait = spec.waitTime();
        String waited = wait == null ? "without a time limit" : wait.isZero() ? "after one attempt"
                : "after waiting " + wait;
        throw new LockBusyException(name, wait, "lock '" + name + "' (" + spec.kind() + ") for "
                + spec.description() + " is held by someone else " + waited + "; the method did not run");
    }

    /** Releases now, or schedules the release when the minimum hold is not over yet. */
    private void release(DistributedLock lock, long owner, long acquiredAt, LockedMethod spec) {
        long remainingNanos = TimeUnit.MILLISECONDS.toNanos(spec.minHoldMs()) - (System.nanoTime() - acquiredAt);
        if (remainingNanos > 0) {
            releaser.releaseLater(lock, owner, remainingNanos);
            return;
        }
        try {
            lock.unlockAsync(owner).join();
        } catch (CompletionException e) {
            throw unwrap(e.getCause());
        }
    }

    private static void enter(String heldKey) {
        Set<String> held = HELD.get();
        if (held == null) {
            held = new HashSet<>();
            HELD.set(held);
        }
        held.add(heldKey);
    }

    private static void leave(String heldKey) {
        Set<String> held = HELD.get();
        held.remove(heldKey);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }

    private static RuntimeException unwrap(Throwable cause) {
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(cause);
    }
}
