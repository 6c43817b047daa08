package io.dlock.spring;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.time.Duration;

/**
 * One {@link DistributedLocked} method, checked and parsed once when its proxy is created: the name template, the
 * times in milliseconds and the value a skipped call returns. Immutable, thread-safe.
 */
final class LockedMethod {
    /** Names the annotation in messages. */
    private static final String LABEL = "@DistributedLocked";

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
    /** The method's Mono or Flux result, held per subscription; null for a synchronous method. */
    private final ReactiveResult reactive;

    private LockedMethod(String description, LockNameTemplate name, LockKind kind, long waitMs, long leaseMs,
                         long minHoldMs, WhenBusy whenBusy, Object skipValue, String warning,
                         ReactiveResult reactive) {
        this.description = description;
        this.name = name;
        this.kind = kind;
        this.waitMs = waitMs;
        this.leaseMs = leaseMs;
        this.minHoldMs = minHoldMs;
        this.whenBusy = whenBusy;
        this.skipValue = skipValue;
        this.warning = warning;
        this.reactive = reactive;
    }

    /**
     * @param method       the most specific method (the one carrying or inheriting the annotation)
     * @param annotation   its annotation
     * @param placeholders resolves {@code ${...}} in the attributes (identity when there is no bean factory)
     * @throws IllegalStateException when an attribute is invalid or the method is not synchronous; the message names
     *                               the method and the attribute
     */
    static LockedMethod parse(Method method, DistributedLocked annotation, StringValueResolver placeholders) {
        MethodAttributes attributes = new MethodAttributes(LABEL, method, placeholders);
        String description = attributes.description();
        ReactiveResult reactive = attributes.requireSupported("lock", true);
        LockNameTemplate name = attributes.nameTemplate(annotation.name());
        long waitMs = attributes.waitMs(annotation.waitTime(), DistributedLocked.WAIT_FOREVER);
        long leaseMs = attributes.leaseMs(annotation.leaseTime(), DistributedLocked.WATCHDOG);
        String minHold = attributes.resolve("minHoldTime", annotation.minHoldTime()).trim();
        long minHoldMs = minHold.isEmpty() ? 0 : attributes.millis("minHoldTime", minHold);
        if (reactive != null && minHoldMs > 0) {
            throw attributes.invalid("minHoldTime \"" + minHold + "\" is not supported on a method returning "
                    + reactive.className() + ": its lock is held from each subscription until the publisher "
                    + "terminates or is cancelled, and released then. Remove minHoldTime (or set it to \"0\")");
        }
        if (leaseMs != DistributedLock.LEASE_WATCHDOG && minHoldMs > leaseMs) {
            throw attributes.invalid("minHoldTime \"" + minHold + "\" exceeds leaseTime \""
                    + attributes.resolve("leaseTime", annotation.leaseTime()).trim()
                    + "\": the lease is the maximum hold");
        }
        String warning = reactive == null && minHold.isEmpty() && isScheduled(method) ? "@DistributedLocked on " + description
                + ": a @Scheduled method without minHoldTime may run twice per tick. The instances' clocks differ, "
                + "so they fire the same tick at slightly different times: when one instance has finished the job "
                + "before another one's tick fires, the late instance finds the lock free and runs the tick again. "
                + "Set minHoldTime above the largest difference between the instances' clocks and below the "
                + "interval between ticks (e.g. minHoldTime = \"30s\" for a job every minute, with a fixed leaseTime "
                + "at least as long, as ShedLock's lockAtLeastFor), or minHoldTime = \"0\" to hold the lock only "
                + "while the method runs (no warning then)" : null;
        return new LockedMethod(description, name, annotation.kind(), waitMs, leaseMs, minHoldMs,
                annotation.whenBusy(), MethodAttributes.skipValue(method.getReturnType()), warning, reactive);
    }

    private static boolean isScheduled(Method method) {
        return AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                || AnnotatedElementUtils.hasAnnotation(method, Schedules.class);
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

    /** @return the method's Mono or Flux result, held per subscription ({@link ReactiveCalls}); null: synchronous */
    ReactiveResult reactive() {
        return reactive;
    }

    /** @return the fixed lease, null for the watchdog */
    Duration leaseTime() {
        return leaseMs == DistributedLock.LEASE_WATCHDOG ? null : Duration.ofMillis(leaseMs);
    }

    /** @return the wait as a {@link Duration}, null for no limit */
    Duration waitTime() {
        return waitMs == DistributedLock.WAIT_FOREVER ? null : Duration.ofMillis(waitMs);
    }
}
