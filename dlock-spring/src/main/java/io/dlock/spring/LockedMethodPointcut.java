package io.dlock.spring;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

import java.lang.reflect.Method;

/**
 * Matches the methods annotated with {@link DistributedLocked} (directly, on an overridden method or an interface
 * method), and checks each match's attributes: the proxy creation of a bean with an invalid one fails with the
 * message of {@link LockedMethod#parse}. Static (no per-call matching); thread-safe.
 */
final class LockedMethodPointcut implements Pointcut, MethodMatcher {
    private final Pointcut annotated = new AnnotationMatchingPointcut(null, DistributedLocked.class, true);
    private final LockedMethods methods;

    LockedMethodPointcut(LockedMethods methods) {
        this.methods = methods;
    }

    @Override
    public ClassFilter getClassFilter() {
        return annotated.getClassFilter();
    }

    @Override
    public MethodMatcher getMethodMatcher() {
        return this;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return annotated.getMethodMatcher().matches(method, targetClass)
                && methods.find(method, targetClass) != null;
    }

    @Override
    public boolean isRuntime() {
        return false;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass, Object... args) {
        throw new UnsupportedOperationException("a static pointcut");
    }
}
