package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run did and what the {@link Checker} found: faults injected, operations completed, and per invariant how many
 * cases were checked and which violated it. {@link #passed()} is false on any violation.
 */
public final class Report {
    /** Violations listed per invariant; the rest are only counted. */
    private static final int SHOWN = 10;

    private final ChaosSettings settings;
    private final String redisVersion;
    private final Duration took;
    private final Map<Fault, Integer> injected;
    private final Map<Event.Type, Integer> types;
    private final int unchecked;
    private final Map<Invariant, Integer> checked = new EnumMap<>(Invariant.class);
    private final Map<Invariant, List<String>> violations = new EnumMap<>(Invariant.class);
    private final Map<String, Integer> counts = new TreeMap<>();
    private final Map<String, List<Long>> samples = new TreeMap<>();
    private final List<String> notes = new ArrayList<>();

    Report(ChaosSettings settings, String redisVersion, Duration took, Map<Fault, Integer> injected,
           List<Event> events) {
        this.settings = settings;
        this.redisVersion = redisVersion;
        this.took = took;
        this.injected = injected;
        this.types = Checker.typeCounts(events);
        this.unchecked = (int) events.stream()
                .filter(e -> e.type() == Event.Type.WRITE_START && e.detail().equals("unchecked")).count();
        for (Invariant inv : Invariant.values()) {
            checked.put(inv, 0);
            violations.put(inv, new ArrayList<>());
        }
    }

    void checked(Invariant inv, int cases) {
        checked.merge(inv, cases, Integer::sum);
    }

    void violation(Invariant inv, String what) {
        violations.get(inv).add(what);
    }

    void count(String what) {
        counts.merge(what, 1, Integer::sum);
    }

    void sample(String what, long value) {
        samples.computeIfAbsent(what, k -> new ArrayList<>()).add(value);
    }

    void note(String what) {
        notes.add(what);
    }

    public boolean passed() {
        return totalViolations() == 0;
    }

    public int totalViolations() {
        return violations.values().stream().mapToInt(List::size).sum();
    }

    /** @return the violations of one invariant */
    public List<String> violations(Invariant inv) {
        return List.copyOf(violations.get(inv));
    }

    /** @return how many cases of one invariant were checked */
    public int checked(Invariant inv) {
        return checked.get(inv);
    }

    /** @return how many faults of a kind were injected */
    public int injected(Fault fault) {
        return injected.getOrDefault(fault, 0);
    }

    /** @return how many events of a type the run recorded */
    public int events(Event.Type type) {
        return types.getOrDefault(type, 0);
    }

    /** The report as text: the tables, then the violations. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append(String.format("dlock chaos run: seed %d, %d s of faults (run took %d s), %d workers, watchdog %d ms,"
                        + " command timeout %d ms, Redis %s%n", settings.seed(), settings.duration().toSeconds(),
                took.toSeconds(), settings.workers(), settings.watchdogMs(), settings.commandTimeoutMs(),
                redisVersion));
        b.append(String.format("%nfaults injected%n"));
        int total = 0;
        for (Fault f : Fault.values()) {
            int n = injected(f);
            total += n;
            b.append(String.format("  %-16s %5d%n", f.label(), n));
        }
        b.append(String.format("  %-16s %5d%n", "total", total));
        for (String note : notes) {
            b.append("  (").append(note).append(")\n");
        }
        b.append(String.format("%noperations%n"));
        row(b, "acquisitions (tokens taken)", events(Event.Type.ACQUIRED));
        row(b, "acquisitions timed out (busy)", events(Event.Type.ACQUIRE_TIMEOUT));
        row(b, "acquisitions failed (LockException)", events(Event.Type.ACQUIRE_ERROR));
        row(b, "writes accepted by the store", events(Event.Type.STORE_ACCEPTED));
        row(b, "writes rejected as stale", events(Event.Type.STORE_REJECTED));
        row(b, "writes not attempted (lease not valid)", events(Event.Type.NOT_VALID));
        row(b, "writes without a lease check (careless)", unchecked);
        row(b, "lease-lost notifications", events(Event.Type.LEASE_LOST));
        row(b, "unlocks", events(Event.Type.UNLOCKED));
        row(b, "unlocks of a lost hold (IMSE)", events(Event.Type.UNLOCK_NOT_HELD));
        row(b, "unlocks failed and retried", events(Event.Type.UNLOCK_ERROR));
        row(b, "worker JVMs started", events(Event.Type.HELLO));
        counts.forEach((what, n) -> row(b, what, n));
        samples.forEach((what, values) -> b.append(String.format("  %-44s %s%n", what, values)));
        b.append(String.format("%n%-52s %8s %10s%n", "invariant", "checked", "violations"));
        for (Invariant inv : Invariant.values()) {
            b.append(String.format("%-52s %8d %10d%n", inv.title, checked.get(inv), violations.get(inv).size()));
        }
        b.append(String.format("%nresult: %s%n", passed() ? "PASSED" : "FAILED, " + totalViolations()
                + " violation(s)"));
        for (Invariant inv : Invariant.values()) {
            List<String> list = violations.get(inv);
            if (list.isEmpty()) {
                continue;
            }
            b.append(String.format("%n%s:%n", inv.title));
            list.stream().limit(SHOWN).forEach(v -> b.append("  - ").append(v).append('\n'));
            if (list.size() > SHOWN) {
                b.append("  … and ").append(list.size() - SHOWN).append(" more\n");
            }
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String what, int n) {
        b.append(String.format("  %-44s %8d%n", what, n));
    }

    @Override
    public String toString() {
        return table();
    }
}
