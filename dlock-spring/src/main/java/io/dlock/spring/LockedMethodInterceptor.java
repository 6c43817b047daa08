package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockKind;
import io.dlock.LockOwner;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Runs one {@link DistributedLocked} call under its lock.
 *
 * <h2>One call, one owner</h2>
 * Each call acquires as an owner of its own ({@link LockClient#newOwner()}, never a thread), through the lock's view
 * for that owner ({@link DistributedLock#as}). So the release can be sent by another thread (the
 * {@link MinimumHoldReleaser}), and a hold kept for its minimum time is not re-entered by the next call of the same
 * thread.
 *
 * <h2>Nested calls</h2>
 * A call made on a thread that is inside other calls of the same lock name ({@link #HELD}) does not take a new owner,
 * which would wait for the outer hold forever: it reuses the outer calls' owner as {@link #nesting} decides. It runs
 * inside the outer hold when that hold already covers it (the same kind; plain, fair and fenced among themselves, which
 * share one Redis hold), re-enters the read side as that owner inside a write hold (dlock lets the writer read), and
 * is refused with {@link IllegalMonitorStateException} otherwise (a write inside only read holds, read-write inside
 * plain or the reverse), before anything is sent.
 *
 * <h2>Order of events</h2>
 * evaluate the name (fails: nothing acquired) → acquire within the wait time (busy: throw or skip; interrupted:
 * nothing left behind) → run the method → check the returned object (a deferred result fails the call, see
 * {@link DeferredResults}) → release at once, or schedule the release when the minimum hold is not over (also after
 * the method threw) → return or rethrow the method's outcome. A failed release (the lease was lost, or Redis failed)
 * is thrown after a successful method, or added as suppressed to the method's exception.
 *
 * <p>A method declared to return {@code Mono} or {@code Flux} takes none of these steps here: {@link ReactiveCalls}
 * returns a publisher that acquires per subscription.
 *
 * <p>Thread-safe; the calling thread blocks only while acquiring (up to the wait time) and releasing (one round trip).
 */
final class LockedMethodInterceptor implements MethodInterceptor {
    /** How long before the end of a fixed lease a minimum hold that reaches it is released (timer slack). */
    static final long BEFORE_LEASE_END_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** Per thread, the locks held by the thread's calls in progress, by lock name; removed when empty. */
    private static final ThreadLocal<Map<String, Nest>> HELD = new ThreadLocal<>();

    /** What a nested call does, given the kinds the outer calls hold on its lock name. */
    enum Nesting {
        /** Run inside the outer hold: no acquisition, the call's own times ignored. */
        INSIDE,
        /** Acquire as the outer calls' owner (a re-entry, which returns at once). */
        REENTER,
        /** Fail before anything is sent: the acquisition would wait for the thread's own hold forever. */
        REFUSE
    }

    private static final Set<LockKind> EXCLUSIVE = EnumSet.of(LockKind.PLAIN, LockKind.FAIR, LockKind.FENCED);

    private final Supplier<? extends LockClient> client;
    private final AnnotatedMethods<DistributedLocked, LockedMethod> methods;
    private final MinimumHoldReleaser releaser;
    private volatile BeanFactory beanFactory;

    LockedMethodInterceptor(Supplier<? extends LockClient> client,
                            AnnotatedMethods<DistributedLocked, LockedMethod> methods, MinimumHoldReleaser releaser) {
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

    /** @return the owner of the calling thread's calls in progress on lock {@code name}, or null */
    static LockOwner ownerOf(String name) {
        Map<String, Nest> held = HELD.get();
        Nest nest = held == null ? null : held.get(name);
        return nest == null ? null : nest.owner;
    }

    /**
     * @param held  the kinds the thread's calls in progress hold on the lock name (not empty)
     * @param inner the kind of the nested call
     */
    static Nesting nesting(Set<LockKind> held, LockKind inner) {
        if (held.contains(inner) || EXCLUSIVE.contains(inner) && !Collections.disjoint(held, EXCLUSIVE)) {
            return Nesting.INSIDE;
        }
        if (inner == LockKind.READ && held.contains(LockKind.WRITE)) {
            return Nesting.REENTER;
        }
        return Nesting.REFUSE;
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
        if (spec.reactive() != null) {
            return ReactiveCalls.locked(client.get(), invocation, spec, target, targetClass, beanFactory);
        }
        String name = spec.name().evaluate(invocation.getArguments(), target, targetClass, beanFactory);
        Map<String, Nest> held = HELD.get();
        Nest outer = held == null ? null : held.get(name);
        LockOwner owner = null;
        if (outer != null) {
            switch (nesting(outer.kinds(), spec.kind())) {
                case INSIDE -> {
                    return runInside(invocation, spec, name, outer.owner);
                }
                case REENTER -> owner = outer.owner;
                case REFUSE -> throw outer.refusal(spec, name);
            }
        }
        LockClient lockClient = client.get();
        if (owner == null) {
            owner = lockClient.newOwner();
        }
        DistributedLock lock = lockClient.getLock(spec.kind(), name).as(owner);
        if (!acquire(lock, spec)) {
            return busy(spec, name);
        }
        long acquiredAt = System.nanoTime();
        enter(name, owner, spec);
        Object result;
        try {
            result = invocation.proceed();
            refuseDeferred(result, spec);
        } catch (Throwable failure) {
            leave(name, spec.kind());
            try {
                release(lock, acquiredAt, spec);
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        leave(name, spec.kind());
        release(lock, acquiredAt, spec);
        return result;
    }

    private static Object runInside(MethodInvocation invocation, LockedMethod spec, String name, LockOwner owner)
            throws Throwable {
        enter(name, owner, spec);
        try {
            Object result = invocation.proceed();
            refuseDeferred(result, spec);
            return result;
        } finally {
            leave(name, spec.kind());
        }
    }

    /** Fails a call whose method returned deferred work, while its lock is still held (see DeferredResults). */
    private static void refuseDeferred(Object result, LockedMethod spec) {
        DeferredResults.refuse(result, "@DistributedLocked on " + spec.description(), "lock");
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
        throw busyException(spec, name);
    }

    /** @return the failure of a call whose lock stayed busy for its whole wait (the method did not run) */
    static LockBusyException busyException(LockedMethod spec, String name) {
        Duration wait = spec.waitTime();
        String waited = wait == null ? "without a time limit" : wait.isZero() ? "after one attempt"
                : "after waiting " + wait;
        return new LockBusyException(name, wait, "lock '" + name + "' (" + spec.kind() + ") for "
                + spec.description() + " is held by someone else " + waited + "; the method did not run");
    }

    /**
     * Releases the view's hold now, or schedules the release when the minimum hold is not over yet. A minimum hold
     * that reaches the end of a fixed lease ({@code minHoldTime = leaseTime}, ShedLock's habit) is released
     * {@link #BEFORE_LEASE_END_NANOS} before the client stops counting on the hold ({@code leaseValidFor()}: the lease
     * minus its margin), so that a hold meant to end there is never reported lost.
     */
    private void release(DistributedLock lock, long acquiredAt, LockedMethod spec) {
        long remainingNanos = TimeUnit.MILLISECONDS.toNanos(spec.minHoldMs()) - (System.nanoTime() - acquiredAt);
        if (remainingNanos > 0 && spec.leaseMs() != DistributedLock.LEASE_WATCHDOG) {
            remainingNanos = Math.min(remainingNanos, lock.leaseValidFor().toNanos() - BEFORE_LEASE_END_NANOS);
        }
        if (remainingNanos > 0) {
            releaser.releaseLater(lock, remainingNanos);
            return;
        }
        lock.unlock();
    }

    private static void enter(String name, LockOwner owner, LockedMethod spec) {
        Map<String, Nest> held = HELD.get();
        if (held == null) {
            held = new HashMap<>();
            HELD.set(held);
        }
        held.computeIfAbsent(name, n -> new Nest(owner, spec.description())).enter(spec.kind());
    }

    private static void leave(String name, LockKind kind) {
        Map<String, Nest> held = HELD.get();
        if (held.get(name).leave(kind)) {
            held.remove(name);
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }

    /** The calls in progress on one thread for one lock name: their owner and the kinds they hold. */
    private static final class Nest {
        final LockOwner owner;
        /** The outermost call, for messages. */
        final String outermost;
        /** Calls in progress per kind, by ordinal. */
        private final int[] calls = new int[LockKind.values().length];

        Nest(LockOwner owner, String outermost) {
            this.owner = owner;
            this.outermost = outermost;
        }

        void enter(LockKind kind) {
            calls[kind.ordinal()]++;
        }

        /** @return whether no call is left */
        boolean leave(LockKind kind) {
            calls[kind.ordinal()]--;
            return Arrays.stream(calls).allMatch(c -> c == 0);
        }

        Set<LockKind> kinds() {
            Set<LockKind> kinds = EnumSet.noneOf(LockKind.class);
            for (LockKind kind : LockKind.values()) {
                if (calls[kind.ordinal()] > 0) {
                    kinds.add(kind);
                }
            }
            return kinds;
        }

        IllegalMonitorStateException refusal(LockedMethod spec, String name) {
            Set<LockKind> kinds = kinds();
            String why = spec.kind() == LockKind.WRITE && kinds.equals(EnumSet.of(LockKind.READ))
                    ? "a WRITE acquisition would wait for that hold forever (a reader cannot become the writer). "
                    + "Take WRITE in the outer call (the writer may also read)"
                    : "a " + spec.kind() + " lock of that name is another kind of lock on the same Redis key, whose "
                    + "acquisition would wait for that hold forever. Use one kind of lock per name (plain, fair "
                    + "and fenced nest in each other, read nests in write)";
            return new IllegalMonitorStateException("@DistributedLocked on " + spec.description() + ": lock '"
                    + name + "' is held as " + kinds.stream().map(LockKind::name).collect(Collectors.joining(" and "))
                    + " by this thread's call of " + outermost + ", which this call "
                    + "is nested in; " + why + ", or give the two methods different lock names. The method did not "
                    + "run");
        }
    }
}
