package io.dlock.spring;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The parsed methods of one annotation ({@link DistributedLocked}, {@link DistributedConcurrencyLimit}), per method
 * and target class. Shared by the pointcut (which parses, so that bad attributes fail when the proxy is created) and
 * the interceptors. Logs each method's warning once, when it is first parsed. Thread-safe.
 *
 * @param <A> the annotation
 * @param <S> what a method's annotation is parsed into (immutable)
 */
final class AnnotatedMethods<A extends Annotation, S> {
    /** Parses one method's annotation; throws {@link IllegalStateException} for an invalid attribute. */
    interface Parser<A, S> {
        S parse(Method method, A annotation, StringValueResolver placeholders);
    }

    /** Marks "not annotated" in the cache (a ConcurrentHashMap holds no null). */
    private static final Object NONE = new Object();

    private final Class<A> type;
    private final Parser<A, S> parser;
    /** What to log once for a parsed method, or null. */
    private final Function<S, String> warning;
    private final Logger log;
    private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>();
    /** The warnings logged (one method may be found through several target classes: each is logged once). */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile StringValueResolver placeholders = value -> value;

    AnnotatedMethods(Class<A> type, Parser<A, S> parser, Function<S, String> warning) {
        this.type = type;
        this.parser = parser;
        this.warning = warning;
        this.log = LoggerFactory.getLogger(type);
    }

    Class<A> annotationType() {
        return type;
    }

    void placeholders(StringValueResolver resolver) {
        this.placeholders = resolver;
    }

    /**
     * @return the parsed method, or null when it carries no annotation of the type
     * @throws IllegalStateException when its attributes are invalid (see the parser)
     */
    @SuppressWarnings("unchecked")
    S find(Method method, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(method, targetClass);
        Object found = cache.get(key);
        if (found == null) {
            found = parse(method, targetClass);
            if (found != NONE) {
                String message = warning.apply((S) found);
                if (message != null && warned.add(message)) {
                    log.warn(message);
                }
            }
            cache.putIfAbsent(key, found);
        }
        return found == NONE ? null : (S) found;
    }

    /** @return the methods parsed so far that carry the annotation (each once per target class); a snapshot */
    @SuppressWarnings("unchecked")
    java.util.List<S> parsed() {
        return cache.values().stream().filter(found -> found != NONE).map(found -> (S) found).toList();
    }

    private Object parse(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        A annotation = AnnotatedElementUtils.findMergedAnnotation(specific, type);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, type);
        }
        return annotation == null ? NONE : parser.parse(specific, annotation, placeholders);
    }
}
