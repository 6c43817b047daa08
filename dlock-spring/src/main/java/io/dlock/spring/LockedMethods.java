package io.dlock.spring;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parsed {@link DistributedLocked} methods, per method and target class. Shared by the pointcut (which parses,
 * so that bad attributes fail when the proxy is created) and the interceptor. Thread-safe.
 */
final class LockedMethods {
    /** Marks "not annotated" in the cache (a ConcurrentHashMap holds no null). */
    private static final Object NONE = new Object();

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    private volatile StringValueResolver placeholders = value -> value;

    void placeholders(StringValueResolver resolver) {
        this.placeholders = resolver;
    }

    /**
     * @return the parsed method, or null when it carries no {@link DistributedLocked}
     * @throws IllegalStateException when its attributes are invalid (see {@link LockedMethod#parse})
     */
    LockedMethod find(Method method, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(method, targetClass);
        Object found = cache.get(key);
        if (found == null) {
            found = parse(method, targetClass);
            cache.putIfAbsent(key, found);
        }
        return found == NONE ? null : (LockedMethod) found;
    }

    private Object parse(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLocked annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLocked.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLocked.class);
        }
        return annotation == null ? NONE : LockedMethod.parse(specific, annotation, placeholders);
    }
}
