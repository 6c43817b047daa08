package io.dlock.bench;

import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Two child JVMs ({@link ContendWorker}, each one client of the library) × {@code threads} threads on one lock,
 * started together: contention across clients. The check: the counter kept in Redis equals the exclusive sections
 * of both JVMs (every operation for {@link ContendWorker.Mode#PLAIN} and {@link ContendWorker.Mode#FAIR}, the writes
 * for {@link ContendWorker.Mode#READ_WRITE}). The children's CPU time is added to the run's client CPU.
 */
final class TwoJvms implements Scenario {
    private final String id;
    private final String title;
    private final ContendWorker.Mode mode;
    private final int threads;

    TwoJvms(String id, String title, ContendWorker.Mode mode, int threads) {
        this.id = id;
        this.title = title;
        this.mode = mode;
        this.threads = threads;
    }

    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    public Outcome run(Library library, Bench.Context context, Duration duration) throws Exception {
        String name = id.toLowerCase(Locale.ROOT); // S4 keeps its lock "s4" and counter "s4:counter"
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        long startAt = System.currentTimeMillis() + 2500;
        double seconds = duration.toMillis() / 1e3;
        List<Process> children = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                children.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", ContendWorker.class.getName(), mode.name(),
                        library.name(), context.uri(), name, Integer.toString(threads),
                        Long.toString(duration.toMillis()), Long.toString(startAt))
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            long ops = 0;
            long cpu = 0;
            Histogram main = Measurement.newHistogram();
            Histogram extra = Measurement.newHistogram();
            for (Process child : children) {
                String result = resultLine(child);
                if (!child.waitFor(duration.toMillis() + 60_000, TimeUnit.MILLISECONDS) || child.exitValue() != 0
                        || result == null) {
                    return new Outcome(new Load.Result(0, seconds, main, null, null), "child JVM failed");
                }
                String[] parts = result.split(" ");
                ops += Long.parseLong(parts[1]);
                cpu += Long.parseLong(parts[2]);
                main.add(ContendWorker.decode(parts[3]));
                extra.add(ContendWorker.decode(parts[4]));
            }
            context.addChildCpu(cpu);
            // each operation records exactly one latency: the extra histogram counts the writes
            long exclusive = mode == ContendWorker.Mode.READ_WRITE ? extra.getTotalCount() : ops;
            String counter = context.stats().get(name + ":counter");
            long inRedis = counter == null ? 0 : Long.parseLong(counter);
            String check = inRedis == exclusive ? "ok" : "COUNTER " + inRedis + " != " + exclusive;
            return new Outcome(new Load.Result(ops, seconds, main,
                    mode == ContendWorker.Mode.READ_WRITE ? extra : null, null), check);
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    /** Reads the child's stdout to its end: the last {@code RESULT} line, or null. */
    private static String resultLine(Process child) throws Exception {
        String result = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("RESULT ")) {
                    result = line;
                }
            }
        }
        return result;
    }
}
