package io.dlock.internal.metrics;

/**
 * Recognises a Micrometer {@code MeterRegistry} without loading Micrometer: {@code LockClientConfig} takes the registry
 * as an {@code Object} so that the library runs without Micrometer on the class path.
 */
public final class MeterRegistryType {
    static final String METER_REGISTRY = "io.micrometer.core.instrument.MeterRegistry";

    private MeterRegistryType() {
    }

    /** @return whether {@code candidate}'s class is, or extends, Micrometer's {@code MeterRegistry} */
    public static boolean isMeterRegistry(Object candidate) {
        for (Class<?> c = candidate.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(METER_REGISTRY)) {
                return true;
            }
        }
        return false;
    }
}
