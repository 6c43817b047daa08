package io.dlock.chaos;

import java.util.EnumMap;
import java.util.Map;

/**
 * The hand-off counts a worker writes into its BYE: {@code handoffs plain=<n> fair=<n> rw=<n> fenced=<n>} (every
 * kind, 0 included). A killed worker writes none.
 */
final class HandoffCounts {
    private static final String PREFIX = "handoffs";

    private HandoffCounts() {
    }

    /** @return the BYE detail for {@code counts} (kinds absent from it count 0) */
    static String format(Map<Workload, Long> counts) {
        StringBuilder b = new StringBuilder(PREFIX);
        for (Workload kind : Workload.values()) {
            b.append(' ').append(kind.label()).append('=').append(counts.getOrDefault(kind, 0L));
        }
        return b.toString();
    }

    /** @return the counts in a BYE detail written by {@link #format}, none when it has none */
    static Map<Workload, Long> parse(String detail) {
        Map<Workload, Long> counts = new EnumMap<>(Workload.class);
        if (!detail.startsWith(PREFIX + " ")) {
            return counts;
        }
        for (String pair : detail.substring(PREFIX.length() + 1).split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                counts.put(Workload.ofLabel(pair.substring(0, eq)), Long.parseLong(pair.substring(eq + 1)));
            }
        }
        return counts;
    }
}
