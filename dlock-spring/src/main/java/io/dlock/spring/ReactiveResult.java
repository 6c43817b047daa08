package io.dlock.spring;

import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;

/**
 * The two deferred results that {@link DistributedLocked} and {@link DistributedConcurrencyLimit} support: a method
 * whose declared return type is exactly Reactor's {@code Mono} or {@code Flux}, held from subscription to termination
 * ({@link ReactiveCalls}). Recognised by class name, so that this class loads without Reactor; {@link ReactiveCalls},
 * which uses Reactor and dlock-reactor, is loaded only for such a method, i.e. when Reactor is on the class path.
 */
enum ReactiveResult {
    MONO("reactor.core.publisher.Mono"),
    FLUX("reactor.core.publisher.Flux");

    /** A class of dlock-reactor, which the reactive calls need beside reactor-core. */
    private static final String DLOCK_REACTOR = "io.dlock.reactor.ReactiveLockClient";

    private final String className;

    ReactiveResult(String className) {
        this.className = className;
    }

    /** @return the reactive result {@code method} declares (its return type exactly Mono or Flux), or null */
    static ReactiveResult of(Method method) {
        String returned = method.getReturnType().getName();
        for (ReactiveResult result : values()) {
            if (result.className.equals(returned)) {
                return result;
            }
        }
        return null;
    }

    /** @return whether dlock-reactor is on the class path that loaded dlock-spring */
    static boolean supported() {
        return ClassUtils.isPresent(DLOCK_REACTOR, ReactiveResult.class.getClassLoader());
    }

    /** @return e.g. {@code reactor.core.publisher.Mono} */
    String className() {
        return className;
    }
}
