package io.dlock.spring;

import org.springframework.aop.ClassFilter;
import org.springframework.aop.MethodMatcher;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

import java.lang.reflect.Method;
import java.util.List;

/**
 * Matches the methods annotated with any of dlock's method annotations ({@link DistributedLocked},
 * {@link DistributedConcurrencyLimit}; directly, on an overridden method or an interface method), and checks each
 * match's attributes: the proxy creation of a bean with an invalid one fails with the parser's message. Static (no
 * per-call matching); thread-safe.
 */
final class LockedMethodPointcut implements Pointcut, MethodMatcher {
    private final List<AnnotatedMethods<?, ?>> methods;
    /** Per entry of {@link #methods}: whether a method carries its annotation. */
    private final List<MethodMatcher> annotated;

    LockedMethodPointcut(List<AnnotatedMethods<?, ?>> methods) {
        this.methods = List.copyOf(methods);
        this.annotated = this.methods.stream()
                .map(m -> new AnnotationMatchingPointcut(null, m.annotationType(), true).getMethodMatcher())
                .toList();
    }

    @Override
    public ClassFilter getClassFilter() {
        return ClassFilter.TRUE;
    }

    @Override
    public MethodMatcher getMethodMatcher() {
        return this;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        boolean matched = false;
        for (int i = 0; i < methods.size(); i++) {
            // every annotation is parsed (not only the first found), so that each one's errors fail the start-up
            if (annotated.get(i).matches(method, targetClass) && methods.get(i).find(method, targetClass) != null) {
                matched = true;
            }
        }
        return matched;
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
