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
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Runs one {@link DistributedLocked} call under its lock.
 *
 * <h2>One call, one owner</h2>
 * Each call acquires as an owner of its own ({@link LockClient#newOwner()}, never a thread), through the lock's view
 * for that owner ({@link DistributedLock#as}). So the release can be sent by another thread (the
 * {@link MinimumHoldReleaser}), and a hold kept for its minimum time is not re-entered by the next call of the same
 * thread. Nested calls on one thread for the same lock name and kind run inside the outer hold ({@link #HELD}) instead
 * of waiting for themselves.
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
        LockClient lockClient = client.get();
        DistributedLock lock = lockClient.getLock(spec.kind(), name).as(lockClient.newOwner());
        if (!acquire(lock, spec)) {
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
                release(lock, acquiredAt, spec);
            } catch (RuntimeException releaseFailure) {
                methodFailure.addSuppressed(releaseFailure);
            }
            throw methodFailure;
        }
        leave(heldKey);
        release(lock, acquiredAt, spec);
        return result;
    }

    /**
     * @param lock the lock's view for the call's owner
     * @return whether the call's owner now holds the lock
     * @throws LockBusyException when interrupted (the view's {@code tryLock} leaves nothing held or queued; the
     *                           interrupt flag is set again)
     */
    private boolean acquire(DistributedLock lock, LockedMethod spec) {
        try {
            return lock.tryLock(spec.waitMs(), spec.leaseMs(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBusyException(lock.getName(), spec.waitTime(), "lock '" + lock.getName() + "' for "
                    + spec.description() + ": interrupted while waiting for it; the method did not run", e);
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

    /** Releases the view's hold now, or schedules the release when the minimum hold is not over yet. */
    private void release(DistributedLock lock, long acquiredAt, LockedMethod spec) {
        long remainingNanos = TimeUnit.MILLISECONDS.toNanos(spec.minHoldMs()) - (System.nanoTime() - acquiredAt);
        if (remainingNanos > 0) {
            releaser.releaseLater(lock, remainingNanos);
            return;
        }
        lock.unlock();
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
}
