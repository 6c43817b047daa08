package io.dlock;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The package graph of dlock-core's compiled classes, as {@code jdeps} sees it (docs/architecture.md §2): acyclic but
 * for the API's one factory edge, and the API imports nothing internal.
 */
class PackageGraphTest {
    private static final Pattern EDGE = Pattern.compile("^\\s+(io\\.dlock\\S*)\\s+->\\s+(io\\.dlock\\S*)\\s");
    private static final String FACTORY_FROM = "io.dlock.LockClient";
    private static final String FACTORY_TO = "io.dlock.internal.client.RedisLockClient";

    /** @return "from -> to" for every class-level dependency between dlock-core's own classes */
    private static Set<String> classEdges() {
        Path classes = Path.of("target", "classes");
        assertThat(Files.isDirectory(classes)).as("compiled classes at %s", classes.toAbsolutePath()).isTrue();
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int exit = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:class", "-filter:none",
                "--multi-release", "base", "-cp", System.getProperty("java.class.path"), classes.toString());
        assertThat(exit).as("jdeps: %s", out).isZero();
        Set<String> edges = new TreeSet<>();
        for (String line : out.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (m.find()) {
                edges.add(m.group(1) + " -> " + m.group(2));
            }
        }
        assertThat(edges).as("jdeps found no dependencies: %s", out).isNotEmpty();
        return edges;
    }

    private static String packageOf(String className) {
        String outer = className.contains("$") ? className.substring(0, className.indexOf('$')) : className;
        return outer.substring(0, outer.lastIndexOf('.'));
    }

    @Test
    void noTwoPackagesDependOnEachOtherButTheFactoryEdge() {
        Set<String> packageEdges = new TreeSet<>();
        for (String edge : classEdges()) {
            String[] ends = edge.split(" -> ");
            String from = packageOf(ends[0]);
            String to = packageOf(ends[1]);
            if (!from.equals(to)) {
                packageEdges.add(from + " -> " + to);
            }
        }
        Set<String> both = new TreeSet<>();
        for (String edge : packageEdges) {
            String[] ends = edge.split(" -> ");
            if (packageEdges.contains(ends[1] + " -> " + ends[0]) && ends[0].compareTo(ends[1]) < 0) {
                both.add(ends[0] + " <-> " + ends[1]);
            }
        }
        assertThat(both).as("package pairs that depend on each other").containsExactly(
                "io.dlock <-> io.dlock.internal.client");
    }

    @Test
    void theApiReachesTheInternalsOnlyThroughTheFactory() {
        Set<String> apiToInternal = new TreeSet<>();
        for (String edge : classEdges()) {
            String[] ends = edge.split(" -> ");
            String from = packageOf(ends[0]);
            boolean api = from.equals("io.dlock") || from.equals("io.dlock.metrics");
            if (api && ends[1].startsWith("io.dlock.internal")) {
                apiToInternal.add(edge);
            }
        }
        assertThat(apiToInternal).containsExactly(FACTORY_FROM + " -> " + FACTORY_TO);
    }
}
