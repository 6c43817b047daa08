package io.dlock.spring;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/**
 * The advice of {@link DistributedLockedAdvisor}: runs a call only while leading its {@link LeaderOnly} election
 * ({@link LeaderOnlyInterceptor}), inside that under its {@link DistributedConcurrencyLimit} permit
 * ({@link LimitedMethodInterceptor}), and inside that under its {@link DistributedLocked} lock
 * ({@link LockedMethodInterceptor}); a method with none of them just proceeds. Thread-safe.
 */
final class DlockMethodInterceptor implements MethodInterceptor {
    private final AnnotatedMethods<LeaderOnly, LeaderOnlyMethod> leaders;
    private final LeaderOnlyInterceptor leaderOnly;
    private final AnnotatedMethods<DistributedConcurrencyLimit, LimitedMethod> limits;
    private final LimitedMethodInterceptor limiter;
    private final LockedMethodInterceptor locker;
    private volatile BeanFactory beanFactory;

    DlockMethodInterceptor(AnnotatedMethods<LeaderOnly, LeaderOnlyMethod> leaders, LeaderOnlyInterceptor leaderOnly,
                           AnnotatedMethods<DistributedConcurrencyLimit, LimitedMethod> limits,
                           LimitedMethodInterceptor limiter, LockedMethodInterceptor locker) {
        this.leaders = leaders;
        this.leaderOnly = leaderOnly;
        this.limits = limits;
        this.limiter = limiter;
        this.locker = locker;
    }

    void beanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        locker.beanFactory(beanFactory);
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        LeaderOnlyMethod leader = leaders.find(invocation.getMethod(), targetClass);
        if (leader == null) {
            return limitedAndLocked(invocation, targetClass);
        }
        return leaderOnly.invoke(invocation, leader, call -> limitedAndLocked(call, targetClass));
    }

    private Object limitedAndLocked(MethodInvocation invocation, Class<?> targetClass) throws Throwable {
        LimitedMethod limit = limits.find(invocation.getMethod(), targetClass);
        if (limit == null) {
            return locker.invoke(invocation);
        }
        return limiter.invoke(invocation, targetClass, limit, beanFactory, locker::invoke);
    }
}
