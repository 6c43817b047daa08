package io.dlock.spring;

import io.dlock.DistributedLock;
import org.springframework.util.StringValueResolver;

import java.lang.reflect.Method;
import java.time.Duration;

/**
 * One {@link DistributedConcurrencyLimit} method, checked and parsed once when its proxy is created. Immutable,
 * thread-safe.
 *
 * @param description e.g. {@code PartnerClient.quote(Order)}, for messages
 * @param permits     ≥ 1
 * @param waitMs      ≥ 0, or {@link DistributedLock#WAIT_FOREVER}
 * @param leaseMs     from 1 to {@link DistributedLock#MAX_LEASE}, or {@link DistributedLock#LEASE_WATCHDOG}
 * @param skipValue   what a skipped call returns
 * @param reactive    the method's Mono or Flux result, held per subscription ({@link ReactiveCalls}); null for a
 *                    synchronous method
 */
record LimitedMethod(String description, LockNameTemplate name, int permits, long waitMs, long leaseMs,
                     WhenBusy whenBusy, Object skipValue, ReactiveResult reactive) {

    static final String LABEL = "@DistributedConcurrencyLimit";

    /**
     * @throws IllegalStateException when an attribute is invalid or the method is not synchronous; the message names
     *                               the method and the attribute
     */
    static LimitedMethod parse(Method method, DistributedConcurrencyLimit annotation,
                               StringValueResolver placeholders) {
        MethodAttributes attributes = new MethodAttributes(LABEL, method, placeholders);
        ReactiveResult reactive = attributes.requireSupported("permit", true);
        if (annotation.permits() < 1) {
            throw attributes.invalid("permits = " + annotation.permits() + " allows no call; give at least 1");
        }
        LockNameTemplate name = attributes.nameTemplate(annotation.name());
        long waitMs = attributes.waitMs(annotation.waitTime(), DistributedConcurrencyLimit.WAIT_FOREVER);
        long leaseMs = attributes.leaseMs(annotation.leaseTime(), DistributedConcurrencyLimit.WATCHDOG);
        return new LimitedMethod(attributes.description(), name, annotation.permits(), waitMs, leaseMs,
                annotation.whenBusy(), MethodAttributes.skipValue(method.getReturnType()), reactive);
    }

    /** @return the wait, null for no limit */
    Duration waitTime() {
        return waitMs == DistributedLock.WAIT_FOREVER ? null : Duration.ofMillis(waitMs);
    }

    /** @return the fixed lease, null for the watchdog */
    Duration leaseTime() {
        return leaseMs == DistributedLock.LEASE_WATCHDOG ? null : Duration.ofMillis(leaseMs);
    }
}
