package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * One {@link DistributedLocked} method, checked and parsed once when its proxy is created: the name template, the
 * times in milliseconds and the value a skipped call returns. Immutable, thread-safe.
 */
final class LockedMethod {
    /** Return types whose work outlives the call: the lock would be released before the work is done. */
    private static final String[] ASYNC_TYPE_NAMES = {
            "org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow"};

    private final String description;
    private final LockNameTemplate name;
    private final LockKind kind;
    /** ≥ 0, or {@link DistributedLock#WAIT_FOREVER}. */
    private final long waitMs;
    /** ≥ 1, or {@link DistributedLock#LEASE_WATCHDOG}. */
    private final long leaseMs;
    /** ≥ 0; never above a fixed {@link #leaseMs}. */
    private final long minHoldMs;
    private final WhenBusy whenBusy;
    private final Object skipValue;

    private LockedMethod(String description, LockNameTemplate name, LockKind kind, long waitMs, long leaseMs,
                         long minHoldMs, WhenBusy whenBusy, Object skipValue) {
        this.description = description;
        this.name = name;
        this.kind = kind;
        this.waitMs = waitMs;
        this.leaseMs = leaseMs;
        this.minHoldMs = minHoldMs;
        this.whenBusy = whenBusy;
        this.skipValue = skipValue;
    }

    /**
     * @param method       the most specific method (the one carrying or inheriting the annotation)
     * @param annotation   its annotation
     * @param placeholders resolves {@code ${...}} in the attributes (identity when there is no bean factory)
     * @throws IllegalStateException when an attribute is invalid or the method is not synchronous; the message names
     *                               the method and the attribute
     */
    static LockedMethod parse(Method method, DistributedLocked annotation, StringValueResolver placeholders) {
        String description = describe(method);
        String problem = refusedSignature(method);
        if (problem != null) {
            throw invalid(description, problem);
        }
        String template = resolve(placeholders, annotation.name(), description, "name");
        LockNameTemplate name;
        try {
            name = LockNameTemplate.parse(template, description);
        } catch (IllegalArgumentException e) {
            throw invalid(description, e.getMessage());
        }
        String wait = resolve(placeholders, annotation.waitTime(), description, "waitTime").trim();
        long waitMs = DistributedLocked.WAIT_FOREVER.equalsIgnoreCase(wait) ? DistributedLock.WAIT_FOREVER
                : millis(wait, "waitTime", description);
        String lease = resolve(placeholders, annotation.leaseTime(), description, "leaseTime").trim();
        long leaseMs = lease.isEmpty() ? DistributedLock.LEASE_WATCHDOG : millis(lease, "leaseTime", description);
        if (leaseMs == 0) {
            throw invalid(description, "leaseTime \"" + lease + "\" is zero; use \"" + DistributedLocked.WATCHDOG
                    + "\" (the default) for a renewed lease");
        }
        if (leaseMs > DistributedLock.MAX_LEASE.toMillis()) {
            throw invalid(description, "leaseTime \"" + lease + "\" exceeds the longest lease, "
                    + DistributedLock.MAX_LEASE);
        }
        String minHold = resolve(placeholders, annotation.minHoldTime(), description, "minHoldTime").trim();
        long minHoldMs = millis(minHold, "minHoldTime", description);
        if (leaseMs != DistributedLock.LEASE_WATCHDOG && minHoldMs > leaseMs) {
            throw invalid(description, "minHoldTime \"" + minHold + "\" exceeds leaseTime \"" + lease
                    + "\": the lease is the maximum hold");
        }
        return new LockedMethod(description, name, annotation.kind(), waitMs, leaseMs, minHoldMs,
                annotation.whenBusy(), skipValue(method.getReturnType()));
    }

    /** @return why the method cannot run under a lock released when it returns, or null when it can */
    private static String refusedSignature(Method method) {
        Class<?> type = method.getReturnType();
        if (Future.class.isAssignableFrom(type) || CompletionStage.class.isAssignableFrom(type)
                || hasSupertypeNamed(type, ASYNC_TYPE_NAMES)) {
            return "returns " + type.getName() + ", whose work may continue after the method returns; the lock "
                    + "would be released too early. Only synchronous methods are supported: lock inside the "
                    + "asynchronous work (with LockClient's locks and their async methods) instead";
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName()
                .equals("kotlin.coroutines.Continuation")) {
            return "is a Kotlin suspend function; only synchronous methods are supported";
        }
        return null;
    }

    private static boolean hasSupertypeNamed(Class<?> type, String[] names) {
        if (type == null) {
            return false;
        }
        if (Arrays.asList(names).contains(type.getName())) {
            return true;
        }
        for (Class<?> parent : type.getInterfaces()) {
            if (hasSupertypeNamed(parent, names)) {
                return true;
            }
        }
        return hasSupertypeNamed(type.getSuperclass(), names);
    }

    private static String resolve(StringValueResolver placeholders, String value, String description,
                                  String attribute) {
        try {
            String resolved = placeholders.resolveStringValue(value);
            return resolved == null ? "" : resolved;
        } catch (IllegalArgumentException e) {
            throw invalid(description, attribute + " \"" + value + "\": " + e.getMessage());
        }
    }

    /** @return the duration in ms, ≥ 0 */
    private static long millis(String value, String attribute, String description) {
        Duration duration;
        try {
            duration = DurationFormatterUtils.detectAndParse(value, DurationFormat.Unit.MILLIS);
        } catch (RuntimeException e) {
            throw invalid(description, attribute + " \"" + value + "\" is not a duration (use e.g. \"500ms\", "
                    + "\"5s\", \"10m\", \"PT5S\" or a number of milliseconds)");
        }
        if (duration.isNegative()) {
            throw invalid(description, attribute + " \"" + value + "\" is negative");
        }
        try {
            return duration.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
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

    private static IllegalStateException invalid(String description, String problem) {
        return new IllegalStateException("@DistributedLocked on " + description + ": " + problem);
    }

    /** e.g. {@code OrderService.pay(Order)}, for messages. */
    String description() {
        return description;
    }

    LockNameTemplate name() {
        return name;
    }

    LockKind kind() {
        return kind;
    }

    long waitMs() {
        return waitMs;
    }

    long leaseMs() {
        return leaseMs;
    }

    long minHoldMs() {
        return minHoldMs;
    }

    WhenBusy whenBusy() {
        return whenBusy;
    }

    Object skipValue() {
        return skipValue;
    }

    /** @return the wait as a {@link Duration}, null for no limit */
    Duration waitTime() {
        return waitMs == DistributedLock.WAIT_FOREVER ? null : Duration.ofMillis(waitMs);
    }
}
