package io.dlock.chaos;

import io.dlock.LockKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.EnumMap;
import java.util.Map;

/**
 * A worker client's local hand-offs per lock kind, read from dlock's own meter {@code dlock.handoffs} (a releasing
 * owner handed the lock straight to a waiting owner of the same client), which the client records in
 * {@link #registry()} once given it ({@code LockClientConfig.Builder#meterRegistry}). Worker side only: the checking
 * side reads the counts back with {@link HandoffCounts}, without Micrometer.
 */
final class HandoffMeter {
    private static final String METER = "dlock.handoffs";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** @return the registry to give the client */
    MeterRegistry registry() {
        return registry;
    }

    /** @return the counts so far, as {@link HandoffCounts#format} writes them */
    String detail() {
        Map<Workload, Long> counts = new EnumMap<>(Workload.class);
        for (Counter c : registry.find(METER).counters()) {
            Workload kind = ofMeterTag(c.getId().getTag("kind"));
            if (kind != null) {
                counts.merge(kind, Math.round(c.count()), Long::sum);
            }
        }
        return HandoffCounts.format(counts);
    }

    /** dlock's meter tags tell the read-write lock's sides apart ({@code read}, {@code write}); the suite does not. */
    private static Workload ofMeterTag(String tag) {
        for (LockKind kind : LockKind.values()) {
            if (kind.tagValue().equals(tag)) {
                return Workload.of(kind);
            }
        }
        return null;
    }
}
