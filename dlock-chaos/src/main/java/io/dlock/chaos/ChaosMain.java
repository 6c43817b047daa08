package io.dlock.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs the chaos suite from the command line and prints the report; exit code 0 when no invariant was violated, 1
 * otherwise, 2 for bad arguments.
 *
 * <pre>
 * java -cp dlock-chaos/target/classes:$(cat dlock-chaos/target/classpath.txt) io.dlock.chaos.ChaosMain \
 *      [--minutes N | --seconds N] [--seed S] [--workers W] [--threads T] [--local-handoffs H] [--step-ms M]
 *      [--out DIR]
 * </pre>
 * The same settings are read from the system properties {@code chaos.minutes}, {@code chaos.seconds},
 * {@code chaos.seed}, {@code chaos.workers}, {@code chaos.threads}, {@code chaos.localHandoffs}, {@code chaos.stepMs},
 * {@code chaos.strict} (which is how {@code mvn verify -Dchaos.minutes=5} reaches the IT).
 */
public final class ChaosMain {
    private ChaosMain() {
    }

    public static void main(String[] args) {
        ChaosSettings settings;
        try {
            settings = fromArgs(args, Path.of("target", "chaos"));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: ChaosMain [--minutes N | --seconds N] [--seed S] [--workers W] [--threads T]"
                    + " [--local-handoffs H] [--step-ms M] [--out DIR]");
            System.exit(2);
            return;
        }
        System.out.println("dlock chaos: " + settings.duration().toSeconds() + " s of faults, seed " + settings.seed()
                + ", output in " + settings.outDir().toAbsolutePath());
        Report report = new ChaosRun(settings).run();
        System.out.print(report.table());
        System.exit(report.passed() ? 0 : 1);
    }

    /** Settings from {@code --name value} arguments, falling back to {@code chaos.*} system properties. */
    static ChaosSettings fromArgs(String[] args, Path defaultOut) {
        String minutes = System.getProperty("chaos.minutes");
        String seconds = System.getProperty("chaos.seconds");
        String seed = System.getProperty("chaos.seed");
        String workers = System.getProperty("chaos.workers");
        String threads = System.getProperty("chaos.threads");
        String handoffs = System.getProperty("chaos.localHandoffs");
        String stepMs = System.getProperty("chaos.stepMs");
        String out = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--minutes" -> minutes = value;
                case "--seconds" -> seconds = value;
                case "--seed" -> seed = value;
                case "--workers" -> workers = value;
                case "--threads" -> threads = value;
                case "--local-handoffs" -> handoffs = value;
                case "--step-ms" -> stepMs = value;
                case "--out" -> out = value;
                default -> throw new IllegalArgumentException("unknown argument: " + args[i]);
            }
            if (value == null) {
                throw new IllegalArgumentException(args[i] + " needs a value");
            }
            i++;
        }
        return settings(minutes, seconds, seed, workers, threads, handoffs, stepMs,
                out == null ? defaultOut : Path.of(out));
    }

    /** Settings from the {@code chaos.*} system properties (unset = default), as the IT gets them from Maven. */
    public static ChaosSettings fromProperties(Path out) {
        return fromArgs(new String[0], out);
    }

    /** Settings from optional texts (blank = default): the short mode unless minutes or seconds are given. */
    public static ChaosSettings settings(String minutes, String seconds, String seed, String workers, String threads,
                                         String localHandoffs, String stepMs, Path out) {
        Duration duration = ChaosSettings.SHORT;
        if (!blank(minutes)) {
            duration = Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
        } else if (!blank(seconds)) {
            duration = Duration.ofSeconds(Long.parseLong(seconds.strip()));
        }
        long s = blank(seed) ? ThreadLocalRandom.current().nextLong(1, 1_000_000) : Long.parseLong(seed.strip());
        int w = blank(workers) ? ChaosSettings.DEFAULT_WORKERS : Integer.parseInt(workers.strip());
        int t = blank(threads) ? ChaosSettings.DEFAULT_THREADS : Integer.parseInt(threads.strip());
        int h = blank(localHandoffs) ? ChaosSettings.DEFAULT_LOCAL_HANDOFFS : Integer.parseInt(localHandoffs.strip());
        long step = blank(stepMs) ? ChaosSettings.DEFAULT_STEP_MAX_MS : Long.parseLong(stepMs.strip());
        boolean strict = !"false".equalsIgnoreCase(System.getProperty("chaos.strict", "true").strip());
        return new ChaosSettings(duration, s, w, t, h, ChaosSettings.DEFAULT_WATCHDOG_MS,
                ChaosSettings.DEFAULT_COMMAND_TIMEOUT_MS, step, out, strict);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank() || s.startsWith("${");
    }
}
