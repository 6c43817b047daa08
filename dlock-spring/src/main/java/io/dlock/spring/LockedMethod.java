package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
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
 * One {@link DistributedLocked} method, checked and parsed once when its proxy is created: the name template, the
 * times in milliseconds and the value a skipped call returns. Immutable, thread-safe.
 */
final class LockedMethod {
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
    /** What to log when the proxy is created, or null. */
    private final String warning;

    private LockedMethod(String description, LockNameTemplate name, LockKind kind, long waitMs, long leaseMs,
                         long minHoldMs, WhenBusy whenBusy, Object skipValue, String warning) {
        this.description = description;
        this.name = name;
        this.kind = kind;
        this.waitMs = waitMs;
        this.leaseMs = leaseMs;
        this.minHoldMs = minHoldMs;
        this.whenBusy = whenBusy;
        this.skipValue = skipValue;
        this.warning = warning;
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
            name = LockNameTemplate.parse(template, method, description);
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
        long minHoldMs = minHold.isEmpty() ? 0 : millis(minHold, "minHoldTime", description);
        if (leaseMs != DistributedLock.LEASE_WATCHDOG && minHoldMs > leaseMs) {
            throw invalid(description, "minHoldTime \"" + minHold + "\" exceeds leaseTime \"" + lease
                    + "\": the lease is the maximum hold");
        }
        String warning = minHold.isEmpty() && isScheduled(method) ? "@DistributedLocked on " + description
                + ": a @Scheduled method without minHoldTime may run twice per tick. The instances' clocks differ, "
                + "so they fire the same tick at slightly different times: when one instance has finished the job "
                + "before another one's tick fires, the late instance finds the lock free and runs the tick again. "
                + "Set minHoldTime above the largest difference between the instances' clocks and below the "
                + "interval between ticks (e.g. minHoldTime = \"30s\" for a job every minute, with a fixed leaseTime "
                + "at least as long, as ShedLock's lockAtLeastFor), or minHoldTime = \"0\" to hold the lock only "
                + "while the method runs (no warning then)" : null;
        return new LockedMethod(description, name, annotation.kind(), waitMs, leaseMs, minHoldMs,
                annotation.whenBusy(), skipValue(method.getReturnType()), warning);
    }

    private static boolean isScheduled(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                || AnnotatedElementUtils.hasAnnotation(method, Schedules.class);
    }

    /** @return why the method cannot run under a lock released when it returns, or null when it can */
    private static String refusedSignature(Method method) {
        String deferred = DeferredResults.declared(method);
        if (deferred != null) {
            return "returns " + deferred + ", whose work may go on after the method returned, when the lock is "
                    + "already released. Only synchronous results are supported: return the value itself (wait "
                    + "for the future, collect the stream into a list), or lock inside the asynchronous work "
                    + "(DistributedLock's async methods, for an owner from LockClient.newOwner())";
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName()
                .equals("kotlin.coroutines.Continuation")) {
            return "is a Kotlin suspend function; only synchronous methods are supported";
        }
        return null;
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

    /** @return what to log once when the proxy is created (a likely mistake that is not an error), or null */
    String warning() {
        return warning;
    }

    /** @return the wait as a {@link Duration}, null for no limit */
    Duration waitTime() {
        return waitMs == DistributedLock.WAIT_FOREVER ? null : Duration.ofMillis(waitMs);
    }
}
