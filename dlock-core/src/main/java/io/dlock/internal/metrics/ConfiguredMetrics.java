package io.dlock.internal.metrics;

import io.dlock.LockClient;
import io.dlock.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Binds the registry of {@code LockClientConfig.meterRegistry} to a client. Only loaded when one is given, so a
 * client without it never loads Micrometer (the signature names no Micrometer type).
 */
public final class ConfiguredMetrics {
    private ConfiguredMetrics() {
    }

    /**
     * @param meterRegistry a Micrometer {@code MeterRegistry} ({@link MeterRegistryType#isMeterRegistry})
     * @return the bound metrics: closing them removes the meters
     */
    public static AutoCloseable bind(LockClient client, Object meterRegistry) {
        LockMetrics metrics = LockMetrics.of(client);
        metrics.bindTo((MeterRegistry) meterRegistry);
        return metrics;
    }
}
