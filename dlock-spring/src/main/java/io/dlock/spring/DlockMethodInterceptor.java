package io.dlock.spring;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;

/**
 * The advice of {@link DistributedLockedAdvisor}: runs a call under its {@link DistributedConcurrencyLimit} permit
 * ({@link LimitedMethodInterceptor}), and inside that under its {@link DistributedLocked} lock
 * ({@link LockedMethodInterceptor}); a method with neither just proceeds. Thread-safe.
 */
final class DlockMethodInterceptor implements MethodInterceptor {
    private final AnnotatedMethods<DistributedConcurrencyLimit, LimitedMethod> limits;
    private final LimitedMethodInterceptor limiter;
    private final LockedMethodInterceptor locker;
    private volatile BeanFactory beanFactory;

    DlockMethodInterceptor(AnnotatedMethods<DistributedConcurrencyLimit, LimitedMethod> limits,
                           LimitedMethodInterceptor limiter, LockedMethodInterceptor locker) {
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
        LimitedMethod limit = limits.find(invocation.getMethod(), targetClass);
        if (limit == null) {
            return locker.invoke(invocation);
        }
        return limiter.invoke(invocation, targetClass, limit, beanFactory, locker::invoke);
    }
}
