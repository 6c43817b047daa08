package io.dlock.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Renders the results as a Markdown table: medians, spread across rounds, dlock/Redisson ratios. */
final class Report {
    private Report() {
    }

    static String brief(Measurement m) {
        if (m.check().startsWith("n/a")) {
            return m.check();
        }
        return String.format("%,10.0f ops/s  p50 %6d us  p99 %7d us  %5.1f cmds/op  %5.2f scripts/op  "
                        + "%5.2f pub/sub/op  %5.2f round trips/op  %6.1f cpu-us/op  %6.1f redis-cpu-us/op  %s",
                m.opsPerSecond(), m.latency().getValueAtPercentile(50), m.latency().getValueAtPercentile(99),
                m.commandsPerOp(), m.scriptCallsPerOp(), m.pubSubPerOp(), m.roundTripsPerOp(), m.cpuMicrosPerOp(),
                m.serverCpuMicrosPerOp(), m.check());
    }

    static String render(List<Scenario> scenarios, Map<String, Map<String, List<Measurement>>> results,
                         List<double[]> floors, String redisVersion, String options) {
        StringBuilder b = new StringBuilder();
        b.append("# dlock vs Redisson 4.7.0\n\n");
        b.append("redis-server ").append(redisVersion).append(", loopback, no persistence; ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores shared by clients and server; ")
                .append(options).append(". Medians over rounds, [min-max] in brackets.\n\n");
        if (!floors.isEmpty()) {
            double ping = median(floors.stream().map(f -> f[0]).toList());
            double cycle = median(floors.stream().map(f -> f[1]).toList());
            b.append(String.format("Raw socket floors (no library): PING %,.0f round trips/s; acquire+release script "
                    + "cycle %,.0f cycles/s.%n%n", ping, cycle));
        }
        b.append("| scenario | dlock ops/s | Redisson ops/s | ratio | dlock p50/p99 us | Redisson p50/p99 us "
                + "| cmds/op d/R | script calls/op d/R | pub/sub/op d/R | round trips/op d/R | client cpu us/op d/R "
                + "| redis cpu us/op d/R | checks |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Scenario s : scenarios) {
            Map<String, List<Measurement>> byLibrary = results.get(s.id());
            if (byLibrary == null) {
                continue;
            }
            // W rows' operations are renewal calls, their window includes taking the locks: no per-op client columns
            boolean renewal = s.id().startsWith("W");
            List<Measurement> d = byLibrary.getOrDefault("dlock", List.of());
            List<Measurement> r = byLibrary.getOrDefault("redisson", List.of());
            b.append("| ").append(s.id()).append(' ').append(s.title()).append(" | ")
                    .append(rate(d)).append(" | ").append(rate(r)).append(" | ")
                    .append(ratio(d, r, renewal)).append(" | ")
                    .append(latency(d)).append(" | ").append(latency(r)).append(" | ")
                    .append(pair("%.1f", d, r, Measurement::commandsPerOp)).append(" | ")
                    .append(renewal ? "- | - | -" : pair("%.2f", d, r, Measurement::scriptCallsPerOp) + " | "
                            + pair("%.2f", d, r, Measurement::pubSubPerOp) + " | "
                            + pair("%.2f", d, r, Measurement::roundTripsPerOp)).append(" | ")
                    .append(pair("%.1f", d, r, Measurement::cpuMicrosPerOp)).append(" | ")
                    .append(pair("%.1f", d, r, Measurement::serverCpuMicrosPerOp)).append(" | ")
                    .append(checks(d)).append(" / ").append(checks(r)).append(" |\n");
            variantRow(b, s.id() + " with metrics bound (dlock+metrics)",
                    byLibrary.getOrDefault(Library.DLOCK_METERED, List.of()), d);
            variantRow(b, s.id() + " with hold details (dlock+details)",
                    byLibrary.getOrDefault(Library.DLOCK_DETAILED, List.of()), d);
            if (hasWriters(d) || hasWriters(r)) {
                b.append("| ").append(s.id()).append(" writers only | ").append(writerRate(d)).append(" | ")
                        .append(writerRate(r)).append(" | ").append(writerRatio(d, r)).append(" | ")
                        .append(writers(d)).append(" | ").append(writers(r)).append(" | | | | | | | |\n");
            }
        }
        appendByName(b, scenarios, results);
        b.append("\nRows \"with metrics bound\": dlock with LockMetrics recording into a SimpleMeterRegistry; rows \"with "
                + "hold details\": dlock whose plain locks write their hold record (holdDetails); their ratio is to dlock "
                + "without them in the same run (1.00x = no cost).\n");
        b.append("\nRows \"writers only\": write operations per second and writer latency of the same runs (the "
                + "row above counts reads and writes together).\n");
        b.append("\nScript calls: EVAL/EVALSHA(_RO); pub/sub: (un)subscribe of every kind; round trips: commands "
                + "no script can have run (Redis forbids them in scripts, or neither library's scripts call them), "
                + "a lower bound: a command that scripts of either library also run (DEL, GET, SET, ...) is left "
                + "out, since its calls cannot be attributed.\n");
        b.append("\nW rows count renewal script calls per second (lower is better; one tick per second); "
                + "other ratios are dlock/Redisson throughput (higher is better).\n");
        return b.toString();
    }

    /** The fewest calls per operation that the by-name table lists for a command. */
    private static final double BY_NAME_FLOOR = 0.05;

    /**
     * Commands per operation by name, for each scenario and library (medians over rounds; script-internal commands
     * included): where the cmds/op column's work goes inside Redis.
     */
    private static void appendByName(StringBuilder b, List<Scenario> scenarios,
                                     Map<String, Map<String, List<Measurement>>> results) {
        b.append("\n## Commands per operation, by name\n\n");
        b.append("Medians over rounds, script-internal commands included; commands below ").append(BY_NAME_FLOOR)
                .append(" per operation left out.\n\n| scenario | library | commands per op |\n|---|---|---|\n");
        for (Scenario s : scenarios) {
            Map<String, List<Measurement>> byLibrary = results.get(s.id());
            if (byLibrary == null) {
                continue;
            }
            for (Map.Entry<String, List<Measurement>> e : byLibrary.entrySet()) {
                List<Measurement> v = valid(e.getValue());
                if (v.isEmpty()) {
                    continue;
                }
                java.util.SortedSet<String> names = new java.util.TreeSet<>();
                v.forEach(m -> names.addAll(m.commands().byName().keySet()));
                List<Map.Entry<String, Double>> perOp = new ArrayList<>();
                for (String name : names) {
                    double n = med(v, m -> m.perOp(name));
                    if (n >= BY_NAME_FLOOR) {
                        perOp.add(Map.entry(name, n));
                    }
                }
                perOp.sort(Map.Entry.<String, Double>comparingByValue().reversed());
                StringBuilder line = new StringBuilder();
                for (Map.Entry<String, Double> c : perOp) {
                    line.append(line.length() == 0 ? "" : ", ").append(c.getKey())
                            .append(String.format(" %.2f", c.getValue()));
                }
                b.append("| ").append(s.id()).append(" | ").append(e.getKey()).append(" | ").append(line)
                        .append(" |\n");
            }
        }
    }

    private static List<Measurement> valid(List<Measurement> ms) {
        return ms.stream().filter(m -> !m.check().startsWith("n/a")).toList();
    }

    private static String rate(List<Measurement> ms) {
        List<Measurement> v = valid(ms);
        if (v.isEmpty()) {
            return ms.isEmpty() ? "-" : "n/a";
        }
        double min = v.stream().mapToDouble(Measurement::opsPerSecond).min().orElse(0);
        double max = v.stream().mapToDouble(Measurement::opsPerSecond).max().orElse(0);
        return String.format("%,.0f [%,.0f-%,.0f]", med(v, Measurement::opsPerSecond), min, max);
    }

    private static String ratio(List<Measurement> d, List<Measurement> r, boolean lowerIsBetter) {
        if (valid(d).isEmpty() || valid(r).isEmpty()) {
            return "-";
        }
        double dv = med(d, Measurement::opsPerSecond);
        double rv = med(r, Measurement::opsPerSecond);
        return lowerIsBetter ? String.format("%.1f vs %.1f calls/s", dv, rv) : String.format("%.2fx", dv / rv);
    }

    /** The row of a dlock variant (metrics, hold details) under its scenario's row; nothing when it did not run. */
    private static void variantRow(StringBuilder b, String title, List<Measurement> v, List<Measurement> plain) {
        if (v.isEmpty()) {
            return;
        }
        b.append("| ").append(title).append(" | ").append(rate(v))
                .append(" | | ").append(variantRatio(v, plain)).append(" | ").append(latency(v))
                .append(" | | ").append(String.format("%.1f / -", med(v, Measurement::commandsPerOp)))
                .append(" | ").append(String.format("%.2f / -", med(v, Measurement::scriptCallsPerOp)))
                .append(" | ").append(String.format("%.2f / -", med(v, Measurement::pubSubPerOp)))
                .append(" | ").append(String.format("%.2f / -", med(v, Measurement::roundTripsPerOp)))
                .append(" | ").append(String.format("%.1f / -", med(v, Measurement::cpuMicrosPerOp)))
                .append(" | ").append(String.format("%.1f / -", med(v, Measurement::serverCpuMicrosPerOp)))
                .append(" | ").append(checks(v)).append(" |\n");
    }

    /** Throughput of a dlock variant over plain dlock's, medians of the same run. */
    private static String variantRatio(List<Measurement> metered, List<Measurement> plain) {
        if (valid(metered).isEmpty() || valid(plain).isEmpty()) {
            return "-";
        }
        return String.format("%.2fx of dlock", med(metered, Measurement::opsPerSecond)
                / med(plain, Measurement::opsPerSecond));
    }

    private static String latency(List<Measurement> ms) {
        List<Measurement> v = valid(ms);
        if (v.isEmpty()) {
            return "-";
        }
        return String.format("%.0f / %.0f", med(v, m -> m.latency().getValueAtPercentile(50)),
                med(v, m -> m.latency().getValueAtPercentile(99)));
    }

    /** Each operation records one latency, so the extra histogram's count is the number of writes. */
    private static List<Measurement> withWriters(List<Measurement> ms) {
        return valid(ms).stream().filter(m -> m.extra() != null && m.extra().getTotalCount() > 0).toList();
    }

    private static boolean hasWriters(List<Measurement> ms) {
        return !withWriters(ms).isEmpty();
    }

    private static double writesPerSecond(Measurement m) {
        return m.extra().getTotalCount() / m.seconds();
    }

    private static String writerRate(List<Measurement> ms) {
        List<Measurement> v = withWriters(ms);
        return v.isEmpty() ? "-" : String.format("%,.0f", med(v, Report::writesPerSecond));
    }

    private static String writerRatio(List<Measurement> d, List<Measurement> r) {
        List<Measurement> dv = withWriters(d);
        List<Measurement> rv = withWriters(r);
        return dv.isEmpty() || rv.isEmpty() ? "-"
                : String.format("%.2fx", med(dv, Report::writesPerSecond) / med(rv, Report::writesPerSecond));
    }

    private static String writers(List<Measurement> ms) {
        List<Measurement> v = withWriters(ms);
        if (v.isEmpty()) {
            return "-";
        }
        return String.format("%.0f / %.0f", med(v, m -> m.extra().getValueAtPercentile(50)),
                med(v, m -> m.extra().getValueAtPercentile(99)));
    }

    private static String pair(String format, List<Measurement> d, List<Measurement> r,
                               ToDoubleFunction<Measurement> f) {
        return String.format(format + " / " + format, med(d, f), med(r, f));
    }

    private static String checks(List<Measurement> ms) {
        return ms.stream().map(Measurement::check).filter(c -> !c.equals("ok")).findFirst().orElse("ok");
    }

    private static double med(List<Measurement> ms, ToDoubleFunction<Measurement> f) {
        List<Measurement> v = valid(ms);
        return v.isEmpty() ? 0 : median(v.stream().map(f::applyAsDouble).toList());
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        int n = sorted.size();
        return n == 0 ? 0 : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
