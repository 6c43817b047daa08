package io.dlock.chaos;

import io.dlock.chaos.Checker.Invariant;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a run did and what the {@link Checker} found: faults injected, operations completed per {@link Workload}, and
 * per invariant how many cases were checked and which violated it (also counted per lock kind where a violation
 * concerns one). {@link #passed()} is false on any violation.
 */
public final class Report {
    /** Violations listed per invariant; the rest are only counted. */
    private static final int SHOWN = 10;
    /** A lock loop's name in a violation's text. */
    private static final Pattern LOOP = Pattern.compile("\\bw\\d+/(\\w+)");
    /** Hand-offs between owners of one client, as the workers that stopped cleanly counted them. */
    private static final String HANDOFFS = "local hand-offs (dlock.handoffs, clean stops)";
    /** The events that end one lock call: an operation each. */
    private static final List<Event.Type> OPERATION_OUTCOMES = List.of(Event.Type.ACQUIRED,
            Event.Type.ACQUIRE_TIMEOUT, Event.Type.ACQUIRE_ERROR, Event.Type.UNLOCKED, Event.Type.UNLOCK_NOT_HELD,
            Event.Type.UNLOCK_ERROR, Event.Type.SETUP, Event.Type.SETUP_ERROR);

    private final ChaosSettings settings;
    private final String redisVersion;
    private final Duration took;
    private final Map<Fault, Integer> injected;
    private final Map<Event.Type, Integer> types;
    /** The election loops' greetings ({@link ElectionLoop}): not worker JVMs. */
    private final int electionHellos;
    /** Event counts per lock kind and type (events of the lock loops only). */
    private final Map<Workload, Map<Event.Type, Integer>> kindTypes = new EnumMap<>(Workload.class);
    private final Map<Workload, Map<String, Integer>> kindCounts = new EnumMap<>(Workload.class);
    private final Map<Workload, Integer> kindViolations = new EnumMap<>(Workload.class);
    private final int unchecked;
    private final Map<Invariant, Integer> checked = new EnumMap<>(Invariant.class);
    private final Map<Invariant, List<String>> violations = new EnumMap<>(Invariant.class);
    private final Map<String, Integer> counts = new TreeMap<>();
    private final Map<String, List<Long>> samples = new TreeMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Map<KnownDefect, List<String>> knownDefects = new EnumMap<>(KnownDefect.class);

    Report(ChaosSettings settings, String redisVersion, Duration took, Map<Fault, Integer> injected,
           List<Event> events) {
        this.settings = settings;
        this.redisVersion = redisVersion;
        this.took = took;
        this.injected = injected;
        this.types = Checker.typeCounts(events);
        this.electionHellos = (int) events.stream()
                .filter(e -> e.type() == Event.Type.HELLO && e.source().endsWith("-election")).count();
        this.unchecked = (int) events.stream()
                .filter(e -> (e.type() == Event.Type.WRITE_START || e.type() == Event.Type.STEP)
                        && e.detail().equals("unchecked")).count();
        for (Invariant inv : Invariant.values()) {
            checked.put(inv, 0);
            violations.put(inv, new ArrayList<>());
        }
        for (Workload kind : Workload.values()) {
            kindTypes.put(kind, new EnumMap<>(Event.Type.class));
            kindCounts.put(kind, new TreeMap<>());
            kindViolations.put(kind, 0);
        }
        for (Event e : events) {
            Workload kind = Workload.ofSource(e.source());
            if (kind != null) {
                kindTypes.get(kind).merge(e.type(), 1, Integer::sum);
            } else if (e.type() == Event.Type.BYE) {
                HandoffCounts.parse(e.detail()).forEach((k, n) -> kindCounts.get(k).merge(HANDOFFS, n.intValue(),
                        Integer::sum));
            }
        }
    }

    /** A violation; attributed to the lock kind of the first loop ({@code w3/rw}) its text names, if any. */
    void violation(Invariant inv, String what) {
        Matcher loop = LOOP.matcher(what);
        Workload kind = null;
        if (loop.find()) {
            try {
                kind = Workload.ofLabel(loop.group(1));
            } catch (IllegalArgumentException notAKind) {
                kind = null;
            }
        }
        violation(inv, kind, what);
    }

    /**
     * A violation concerning the lock of {@code kind} (null: none in particular). One that shows a
     * {@link KnownDefect} is listed apart and does not fail the run, unless the run is strict.
     */
    void violation(Invariant inv, Workload kind, String what) {
        KnownDefect known = KnownDefect.of(inv, what);
        if (known != null && !settings.strict()) {
            knownDefects.computeIfAbsent(known, k -> new ArrayList<>()).add(what);
            return;
        }
        violations.get(inv).add(what);
        if (kind != null) {
            kindViolations.merge(kind, 1, Integer::sum);
        }
    }

    void countForKind(Workload kind, String what) {
        kindCounts.get(kind).merge(what, 1, Integer::sum);
    }

    /** @return a per-kind count ({@link FaultReach#FAULTS_MET} and the like) */
    public int kindCount(Workload kind, String what) {
        return kindCounts.get(kind).getOrDefault(what, 0);
    }

    /** @return how many events of a type the loops of one lock kind recorded */
    public int events(Workload kind, Event.Type type) {
        return kindTypes.get(kind).getOrDefault(type, 0);
    }

    /** @return lock calls made on the lock of one kind: acquisition attempts and releases, whatever their outcome */
    public int operations(Workload kind) {
        int n = 0;
        for (Event.Type t : OPERATION_OUTCOMES) {
            n += events(kind, t);
        }
        return n;
    }

    /** @return lock calls made on every lock */
    public int operations() {
        int n = 0;
        for (Workload kind : Workload.values()) {
            n += operations(kind);
        }
        return n;
    }

    /** @return the violations attributed to one lock kind */
    public int violations(Workload kind) {
        return kindViolations.get(kind);
    }

    void checked(Invariant inv, int cases) {
        checked.merge(inv, cases, Integer::sum);
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

    /** @return whether no invariant was violated and every invariant judged at least one case */
    public boolean passed() {
        return totalViolations() == 0 && unjudged().isEmpty();
    }

    /**
     * @return the invariants that judged no case: a check that saw nothing to judge proves nothing, so a run with
     *         any fails ({@link #passed()})
     */
    public List<Invariant> unjudged() {
        return checked.entrySet().stream().filter(e -> e.getValue() == 0).map(Map.Entry::getKey).toList();
    }

    public int totalViolations() {
        return violations.values().stream().mapToInt(List::size).sum();
    }

    /** @return the violations of one invariant */
    public List<String> violations(Invariant inv) {
        return List.copyOf(violations.get(inv));
    }

    /** @return how many violations showed a known defect (not counted as violations unless the run is strict) */
    public int knownDefects() {
        return knownDefects.values().stream().mapToInt(List::size).sum();
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
        b.append(String.format("dlock chaos run: seed %d, %d s of faults (run took %d s), %d workers x %d threads per"
                        + " lock kind, local hand-offs %d, watchdog %d ms, command timeout %d ms, Redis %s%n",
                settings.seed(), settings.duration().toSeconds(), took.toSeconds(), settings.workers(),
                settings.threads(), settings.localHandoffs(), settings.watchdogMs(), settings.commandTimeoutMs(),
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
        b.append(String.format("%n%-48s", "operations, faults and violations per kind"));
        for (Workload kind : Workload.values()) {
            b.append(String.format(" %8s", kind.label()));
        }
        b.append(String.format(" %8s%n", "total"));
        kindRow(b, "set-ups (trySetPermits, trySetCount)", Event.Type.SETUP);
        kindRow(b, "set-ups failed (LockException)", Event.Type.SETUP_ERROR);
        kindRow(b, "acquisitions (latch: count-downs, awaits open)", Event.Type.ACQUIRED);
        kindRow(b, "acquisitions timed out (latch: awaits)", Event.Type.ACQUIRE_TIMEOUT);
        kindRow(b, "acquisitions failed (LockException)", Event.Type.ACQUIRE_ERROR);
        kindRow(b, "releases", Event.Type.UNLOCKED);
        kindRow(b, "releases of a lost hold (IMSE)", Event.Type.UNLOCK_NOT_HELD);
        kindRow(b, "releases failed (LockException, not retried)", Event.Type.UNLOCK_ERROR);
        kindRow(b, "steps not taken (lease not valid)", Event.Type.NOT_VALID);
        kindRow(b, "lease-lost notifications", Event.Type.LEASE_LOST);
        kindRow(b, "releases hit by release-drop", kind -> kindCounts.get(kind)
                .getOrDefault("releases hit by release-drop", 0));
        kindRow(b, "Redis probes inside a hold", Event.Type.PROBE);
        kindRow(b, "probes: hold absent from Redis", kind -> kindCounts.get(kind)
                .getOrDefault(RedisHoldChecks.ABSENT, 0));
        kindRow(b, "local hand-offs (workers that stopped)", kind -> kindCounts.get(kind).getOrDefault(HANDOFFS, 0));
        kindRow(b, "lock operations (calls)", this::operations);
        kindRow(b, FaultReach.FAULTS_MET, kind -> kindCount(kind, FaultReach.FAULTS_MET));
        kindRow(b, FaultReach.SHORT_STALLS_MET, kind -> kindCount(kind, FaultReach.SHORT_STALLS_MET));
        kindRow(b, FaultReach.LONG_STALLS_MET, kind -> kindCount(kind, FaultReach.LONG_STALLS_MET));
        kindRow(b, "violations", this::violations);
        b.append(String.format("%nother figures%n"));
        row(b, "lock operations (calls), all kinds", operations());
        row(b, "faults injected", total);
        row(b, "violations", totalViolations());
        row(b, "known-defect cases (not failing unless strict)", knownDefects());
        row(b, "writes accepted by the store (fenced)", events(Event.Type.STORE_ACCEPTED));
        row(b, "writes rejected as stale", events(Event.Type.STORE_REJECTED));
        row(b, "steps without a lease check (careless)", unchecked);
        row(b, "election terms won", events(Event.Type.ELECTED));
        row(b, "election writes accepted by the register", events(Event.Type.REGISTER_ACCEPTED));
        row(b, "election writes rejected as stale", events(Event.Type.REGISTER_REJECTED));
        row(b, "worker JVMs started", events(Event.Type.HELLO) - loopHellos() - electionHellos);
        counts.forEach((what, n) -> row(b, what, n));
        samples.forEach((what, values) -> b.append(String.format("  %-44s %s%n", what, values)));
        b.append(String.format("%n%-52s %8s %10s%n", "invariant", "checked", "violations"));
        for (Invariant inv : Invariant.values()) {
            b.append(String.format("%-52s %8d %10d%s%n", inv.title, checked.get(inv), violations.get(inv).size(),
                    checked.get(inv) == 0 ? "  judged no case" : ""));
        }
        b.append(String.format("%nresult: %s%s%n", passed() ? "PASSED" : "FAILED, " + totalViolations()
                + " violation(s)" + (unjudged().isEmpty() ? "" : ", " + unjudged().size()
                + " invariant(s) judged no case: " + unjudged().stream().map(i -> i.title).toList()),
                knownDefects.isEmpty() ? "" : " (and " + knownDefects() + " case(s) of known"
                + " defects, listed below; -Dchaos.strict=true fails on them)"));
        knownDefects.forEach((defect, list) -> {
            b.append(String.format("%nknown defect %s (%d):%n", defect.name(), list.size()));
            list.stream().limit(3).forEach(v -> b.append("  - ").append(v).append('\n'));
        });
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

    private int loopHellos() {
        int n = 0;
        for (Workload kind : Workload.values()) {
            n += events(kind, Event.Type.HELLO);
        }
        return n;
    }

    private void kindRow(StringBuilder b, String what, Event.Type type) {
        kindRow(b, what, kind -> events(kind, type));
    }

    private static void kindRow(StringBuilder b, String what, java.util.function.ToIntFunction<Workload> value) {
        b.append(String.format("  %-46s", what));
        int total = 0;
        for (Workload kind : Workload.values()) {
            int n = value.applyAsInt(kind);
            total += n;
            b.append(String.format(" %8d", n));
        }
        b.append(String.format(" %8d%n", total));
    }

    private static void row(StringBuilder b, String what, int n) {
        b.append(String.format("  %-44s %8d%n", what, n));
    }

    @Override
    public String toString() {
        return table();
    }
}
