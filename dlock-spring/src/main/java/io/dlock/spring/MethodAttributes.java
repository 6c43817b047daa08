package io.dlock.spring;

import io.dlock.DistributedLock;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Reads the attributes shared by dlock's method annotations ({@link DistributedLocked},
 * {@link DistributedConcurrencyLimit}) for one method, when its proxy is created: placeholders, the name template,
 * the wait and the lease, the synchronous-result check and the value a skipped call returns. Every failure is an
 * {@link IllegalStateException} whose message starts with the annotation and the method ({@code "@DistributedLocked
 * on OrderService.pay(Order): ..."}). One instance per parse; not thread-safe, not kept.
 */
final class MethodAttributes {
    private final String annotation;
    private final Method method;
    private final String description;
    private final StringValueResolver placeholders;

    /**
     * @param annotation   how messages name the annotation, e.g. {@code "@DistributedLocked"}
     * @param method       the most specific annotated method
     * @param placeholders resolves {@code ${...}}
     */
    MethodAttributes(String annotation, Method method, StringValueResolver placeholders) {
        this.annotation = annotation;
        this.method = method;
        this.description = describe(method);
        this.placeholders = placeholders;
    }

    /** e.g. {@code OrderService.pay(Order)}. */
    String description() {
        return description;
    }

    /**
     * Refuses a method whose result may carry work on after it returned, except a declared {@code Mono} or
     * {@code Flux} when {@code reactiveAllowed} (then dlock-reactor must be on the class path).
     *
     * @param held what the call holds while the method runs, for the message ("lock", "permit")
     * @return the reactive result the method declares, or null for a synchronous method
     */
    ReactiveResult requireSupported(String held, boolean reactiveAllowed) {
        ReactiveResult reactive = reactiveAllowed ? ReactiveResult.of(method) : null;
        if (reactive != null) {
            if (!ReactiveResult.supported()) {
                throw invalid("returns " + reactive.className() + ": the " + held + " is held from each "
                        + "subscription to its end, which needs io.dlock:dlock-reactor on the class path; add it");
            }
            return reactive;
        }
        String deferred = DeferredResults.declared(method);
        if (deferred != null) {
            throw invalid("returns " + deferred + ", whose work may go on after the method returned, when the "
                    + held + " is already released. Only synchronous results, and Reactor's Mono and Flux "
                    + "declared as such, are supported: return the value itself (wait for the future, collect the stream into a list), or lock inside the "
                    + "asynchronous work (DistributedLock's async methods, for an owner from LockClient.newOwner())");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName()
                .equals("kotlin.coroutines.Continuation")) {
            throw invalid("is a Kotlin suspend function; only synchronous methods are supported");
        }
        return null;
    }

    /** @return the attribute with its {@code ${...}} placeholders resolved, never null */
    String resolve(String attribute, String value) {
        try {
            String resolved = placeholders.resolveStringValue(value);
            return resolved == null ? "" : resolved;
        } catch (IllegalArgumentException e) {
            throw invalid(attribute + " \"" + value + "\": " + e.getMessage());
        }
    }

    /** @return the name template, checked against the method's parameters */
    LockNameTemplate nameTemplate(String value) {
        String template = resolve("name", value);
        try {
            return LockNameTemplate.parse(template, method, annotation + " on " + description);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /**
     * @param forever the value meaning "no limit" (case-insensitive)
     * @return the wait in ms, ≥ 0, or {@link DistributedLock#WAIT_FOREVER}
     */
    long waitMs(String value, String forever) {
        String wait = resolve("waitTime", value).trim();
        return forever.equalsIgnoreCase(wait) ? DistributedLock.WAIT_FOREVER : millis("waitTime", wait);
    }

    /**
     * @param watchdog the value meaning "renewed by the watchdog"
     * @return the lease in ms, from 1 to {@link DistributedLock#MAX_LEASE}, or {@link DistributedLock#LEASE_WATCHDOG}
     *         for a blank value
     */
    long leaseMs(String value, String watchdog) {
        String lease = resolve("leaseTime", value).trim();
        if (lease.isEmpty()) {
            return DistributedLock.LEASE_WATCHDOG;
        }
        long leaseMs = millis("leaseTime", lease);
        if (leaseMs == 0) {
            throw invalid("leaseTime \"" + lease + "\" is zero; use \"" + watchdog
                    + "\" (the default) for a renewed lease");
        }
        if (!io.dlock.Leases.isValidLease(Duration.ofMillis(leaseMs))) {
            throw invalid("leaseTime \"" + lease + "\" exceeds the longest lease, " + DistributedLock.MAX_LEASE);
        }
        return leaseMs;
    }

    /** @return the duration in ms, ≥ 0 (saturated at {@link Long#MAX_VALUE}) */
    long millis(String attribute, String value) {
        Duration duration;
        try {
            duration = DurationFormatterUtils.detectAndParse(value, DurationFormat.Unit.MILLIS);
        } catch (RuntimeException e) {
            throw invalid(attribute + " \"" + value + "\" is not a duration (use e.g. \"500ms\", "
                    + "\"5s\", \"10m\", \"PT5S\" or a number of milliseconds)");
        }
        if (duration.isNegative()) {
            throw invalid(attribute + " \"" + value + "\" is negative");
        }
        try {
            return duration.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** @return the failure for an invalid attribute, its message naming the annotation and the method */
    IllegalStateException invalid(String problem) {
        return new IllegalStateException(annotation + " on " + description + ": " + problem);
    }

    /** The value a skipped call returns: empty optionals, zero or false for primitives, null otherwise. */
    static Object skipValue(Class<?> type) {
        if (type == Optional.class) {
            return Optional.empty();
        } else if (type == OptionalInt.class) {
            return OptionalInt.empty();
        } else if (type == OptionalLong.class) {
            return OptionalLong.empty();
        } else if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        } else if (type == boolean.class) {
            return false;
        } else if (type == char.class) {
            return '\0';
        } else if (type == byte.class) {
            return (byte) 0;
        } else if (type == short.class) {
            return (short) 0;
        } else if (type == int.class) {
            return 0;
        } else if (type == long.class) {
            return 0L;
        } else if (type == float.class) {
            return 0f;
        } else if (type == double.class) {
            return 0d;
        }
        return null;
    }

    static String describe(Method method) {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
