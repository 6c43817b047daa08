package io.dlock.chaos;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.util.EnumMap;
import java.util.Map;

/**
 * A worker client's local hand-offs per lock kind, read from dlock's own meter {@code dlock.handoffs} (a releasing
 * owner handed the lock straight to a waiting owner of the same client), which the client records in
 * {@link #registry()} once given it ({@code LockClientConfig.Builder#meterRegistry}). The worker writes the counts
 * into its BYE; a killed worker's are lost.
 */
final class HandoffCount {
    private static final String PREFIX = "handoffs";
    private static final String METER = "dlock.handoffs";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    /** @return the registry to give the client */
    MeterRegistry registry() {
        return registry;
    }

    /** @return {@code handoffs plain=<n> fair=<n> rw=<n> fenced=<n>}: the counts so far */
    String detail() {
        Map<LockKind, Long> counts = new EnumMap<>(LockKind.class);
        for (LockKind kind : LockKind.values()) {
            counts.put(kind, 0L);
        }
        for (Counter c : registry.find(METER).counters()) {
            LockKind kind = ofMeterTag(c.getId().getTag("kind"));
            if (kind != null) {
                counts.merge(kind, Math.round(c.count()), Long::sum);
            }
        }
        StringBuilder b = new StringBuilder(PREFIX);
        counts.forEach((kind, n) -> b.append(' ').append(kind.label()).append('=').append(n));
        return b.toString();
    }

    /** @return the counts in a BYE detail written by {@link #detail()}, none when it has none */
    static Map<LockKind, Long> parse(String detail) {
        Map<LockKind, Long> counts = new EnumMap<>(LockKind.class);
        if (!detail.startsWith(PREFIX + " ")) {
            return counts;
        }
        for (String pair : detail.substring(PREFIX.length() + 1).split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                counts.put(LockKind.ofLabel(pair.substring(0, eq)), Long.parseLong(pair.substring(eq + 1)));
            }
        }
        return counts;
    }

    /** dlock's meter tags tell the read-write lock's sides apart ({@code read}, {@code write}); the suite does not. */
    private static LockKind ofMeterTag(String tag) {
        if (tag == null) {
            return null;
        }
        return switch (tag) {
            case "plain" -> LockKind.PLAIN;
            case "fair" -> LockKind.FAIR;
            case "read", "write" -> LockKind.READ_WRITE;
            case "fenced" -> LockKind.FENCED;
            default -> null;
        };
    }
}
