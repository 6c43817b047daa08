package io.dlock.spring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The parsed {@link DistributedLocked} methods, per method and target class. Shared by the pointcut (which parses,
 * so that bad attributes fail when the proxy is created) and the interceptor. Logs each method's
 * {@link LockedMethod#warning() warning} once, when it is first parsed. Thread-safe.
 */
final class LockedMethods {
    private static final Logger log = LoggerFactory.getLogger(DistributedLocked.class);
    /** Marks "not annotated" in the cache (a ConcurrentHashMap holds no null). */
    private static final Object NONE = new Object();

    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    /** The warnings logged (one method may be found through several target classes: each is logged once). */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
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
            if (found instanceof LockedMethod parsed && parsed.warning() != null && warned.add(parsed.warning())) {
                log.warn(parsed.warning());
            }
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
