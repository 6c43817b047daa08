package io.dlock.bench;

import io.dlock.redisprocess.RedisServer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * dlock against Redisson 4.7 in one run, on one {@code redis-server} that dlock-redis-process starts (loopback, no
 * persistence). Every scenario runs for each library alternately, several rounds, so that machine noise hits both
 * alike; the report gives medians, the spread across rounds and the dlock/Redisson ratio.
 *
 * <pre>
 * usage: Bench [--quick] [--rounds N] [--seconds S] [--only S1,S3,...] [--out FILE]
 * </pre>
 * {@code --quick}: one short round (about a minute), the smoke run CI does so the module does not rot.
 */
public final class Bench {
    private static final List<String> LIBRARIES = List.of("dlock", Library.DLOCK_METERED, Library.DLOCK_DETAILED,
            "redisson");
    /**
     * The scenarios each dlock variant also runs, side by side with plain dlock: with metrics bound (S1, S2), with
     * hold details (S1, S3: {@code LockClientConfig.Builder.holdDetails}).
     */
    static final Map<String, Set<String>> VARIANT_SCENARIOS = Map.of(Library.DLOCK_METERED, Set.of("S1", "S2"),
            Library.DLOCK_DETAILED, Set.of("S1", "S3"));

    /**
     * What scenarios share: the server's address, a stats connection, CPU spent in child JVMs, and the attribution
     * of commands to clients.
     */
    record Context(String uri, RedisStats stats, AtomicLong childCpu, ClientSent clientSent) {
        void addChildCpu(long nanos) {
            childCpu.addAndGet(nanos);
        }
    }

    private Bench() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Options options = Options.parse(args);
        List<Scenario> scenarios = Scenarios.all().stream()
                .filter(s -> options.only.isEmpty() || options.only.contains(s.id()))
                .filter(Bench::runnable)
                .collect(Collectors.toList());
        Map<String, Map<String, List<Measurement>>> results = new LinkedHashMap<>();
        List<double[]> floors = new ArrayList<>();
        String version;
        RedisServer.reapOrphans(); // servers of earlier runs whose JVM was killed; never those of running JVMs
        try (RedisServer server = RedisServer.start(); RedisStats stats = new RedisStats(server.uri())) {
            version = server.version();
            Context context = new Context(server.uri(), stats, new AtomicLong(),
                    new ClientSent(InScriptCommands.scan(), stats::noscript));
            System.out.printf("redis-server %s at %s; %d round(s) of %s s; %d cores%n", version, server.uri(),
                    options.rounds, options.seconds, Runtime.getRuntime().availableProcessors());
            List<Library> libraries = new ArrayList<>();
            try {
                for (String name : LIBRARIES) {
                    libraries.add(Library.open(name, server.uri(), Duration.ofSeconds(30)));
                }
                Duration warmup = Duration.ofMillis(options.quick ? 300 : 2000);
                for (Scenario scenario : scenarios) {
                    for (Library library : libraries) {
                        if (runs(scenario, library)) {
                            measure(scenario, library, context, warmup);
                        }
                    }
                }
                Duration duration = Duration.ofMillis((long) (options.seconds * 1000));
                for (int round = 0; round < options.rounds; round++) {
                    try (RawFloor floor = new RawFloor(server.uri())) {
                        floors.add(new double[] {floor.pings(Duration.ofMillis(500)),
                                floor.lockCycles(Duration.ofMillis(500))});
                    }
                    List<Library> order = new ArrayList<>(libraries);
                    if (round % 2 == 1) {
                        java.util.Collections.reverse(order);
                    }
                    for (Scenario scenario : scenarios) {
                        for (Library library : order) {
                            if (!runs(scenario, library)) {
                                continue;
                            }
                            Measurement m = measure(scenario, library, context, duration);
                            results.computeIfAbsent(scenario.id(), k -> new LinkedHashMap<>())
                                    .computeIfAbsent(library.name(), k -> new ArrayList<>()).add(m);
                            System.out.printf("round %d %-5s %-13s %s%n", round + 1, scenario.id(), library.name(),
                                    Report.brief(m));
                        }
                    }
                }
            } finally {
                libraries.forEach(Library::close);
            }
        }
        String report = Report.render(scenarios, results, floors, version, options.describe());
        System.out.println();
        System.out.println(report);
        Path out = options.out != null ? options.out : Path.of("dlock-bench", "target",
                "bench-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".md");
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println("results written to " + out);
        boolean unsafe = results.values().stream().flatMap(m -> m.values().stream()).flatMap(List::stream)
                .anyMatch(m -> !m.check().equals("ok") && !m.check().startsWith("n/a"));
        System.exit(unsafe ? 1 : 0);
    }

    /** @return whether {@code scenario} can run on this JVM; if not, says so in one line */
    private static boolean runnable(Scenario scenario) {
        String reason = scenario.unavailable();
        if (reason != null) {
            System.out.printf("%s skipped: %s%n", scenario.id(), reason);
        }
        return reason == null;
    }

    /** @return whether {@code scenario} runs for {@code library} (a dlock variant runs its scenarios only) */
    private static boolean runs(Scenario scenario, Library library) {
        Set<String> only = VARIANT_SCENARIOS.get(library.name());
        return only == null || only.contains(scenario.id());
    }

    /** One run of one scenario for one library, with Redis commands and CPU counted around it. */
    static Measurement measure(Scenario scenario, Library library, Context context, Duration duration)
            throws Exception {
        context.stats().flushAll();
        context.childCpu().set(0);
        Map<String, Long> before = context.stats().calls();
        long serverCpu0 = context.stats().cpuNanos();
        long cpu0 = ContendWorker.cpuNanos();
        Scenario.Outcome outcome;
        try {
            outcome = scenario.run(library, context, duration);
        } catch (UnsupportedOperationException e) {
            return new Measurement(0, duration.toMillis() / 1e3, Measurement.newHistogram(), null,
                    CommandCounts.NONE, 0, 0,
                    "n/a (" + e.getMessage() + ")");
        }
        long cpu = ContendWorker.cpuNanos() - cpu0 + context.childCpu().get();
        long serverCpu = context.stats().cpuNanos() - serverCpu0;
        Map<String, Long> after = context.stats().calls();
        Load.Result load = outcome.load();
        return new Measurement(load.ops(), load.seconds(), load.main(), load.extra(),
                context.clientSent().count(RedisStats.deltas(before, after)), cpu, serverCpu,
                outcome.check());
    }

    static final class Options {
        boolean quick;
        int rounds = 5;
        double seconds = 5;
        Set<String> only = Set.of();
        Path out;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--quick" -> {
                        o.quick = true;
                        o.rounds = 1;
                        o.seconds = 1.5;
                    }
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--seconds" -> o.seconds = Double.parseDouble(args[++i]);
                    case "--only" -> o.only = Set.copyOf(Arrays.asList(args[++i].toUpperCase().split(",")));
                    case "--out" -> o.out = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + "; usage: [--quick] [--rounds N] [--seconds S] [--only S1,S3] [--out FILE]");
                }
            }
            return o;
        }

        String describe() {
            return (quick ? "quick, " : "") + rounds + " round(s) x " + seconds + " s per scenario and library";
        }
    }
}
