package io.dlock.it;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only {@code dlock-core} uses {@code io.dlock.internal}: the internal packages can change without breaking another
 * module, as they can without breaking users. Reads the source trees of every module of the repository (found from
 * the system property {@code dlock.it.rootDir}, set by dlock-it's pom) and fails listing each file, outside
 * dlock-core, that names an internal type (an import, or a qualified name in code).
 *
 * <p>The rule covers the main sources of every module and the test sources of every module, with two white-box
 * exceptions, neither published: the test sources of {@code dlock-it} (integration tests that read a client's
 * {@code Diagnostics} or run the Lua scripts themselves) and the main sources of {@code dlock-bench} (its raw floor
 * runs dlock's own Lua scripts over a plain socket, to measure what no client library can beat). Text in string
 * literals is not a use (a logger name such as {@code "io.dlock.internal.lease.LeaseRenewer"} is configuration).
 */
class InternalPackageBoundaryIT {
    /** Module directory (relative to the root) and source set that may use the internal packages. */
    private static final Set<String> WHITE_BOX = Set.of("dlock-core/main", "dlock-core/test", "dlock-it/test",
            "dlock-bench/main");
    /** A use of the package in code: not part of a longer name (a logger name's {@code ….log.io.dlock…}). */
    private static final Pattern USE = Pattern.compile("(?<![\\w.])io\\.dlock\\.internal\\b");
    private static final Pattern STRING_LITERAL = Pattern.compile("\"(?:\\\\.|[^\"\\\\])*\"");

    @Test
    void noModuleButDlockCoreUsesTheInternalPackages() throws IOException {
        Path root = Path.of(System.getProperty("dlock.it.rootDir", "..")).toAbsolutePath().normalize();
        Set<String> checked = new TreeSet<>();
        List<String> offenders = new ArrayList<>();
        for (Path sources : sourceSets(root)) {
            Path module = sources.getParent().getParent().getParent();
            String set = sources.getParent().getFileName().toString();
            String name = root.relativize(module).toString().replace('\\', '/') + "/" + set;
            if (WHITE_BOX.contains(name)) {
                continue;
            }
            checked.add(name);
            try (Stream<Path> files = Files.walk(sources)) {
                files.filter(f -> f.toString().endsWith(".java")).filter(InternalPackageBoundaryIT::usesInternals)
                        .forEach(f -> offenders.add(root.relativize(f).toString()));
            }
        }
        assertThat(checked).as("the source sets read").contains("dlock-spring/main", "dlock-spring/test",
                "dlock-spring-boot-starter/main", "dlock-spring-boot-starter/test", "dlock-testkit/main",
                "dlock-redis-process/main", "dlock-cli/main", "dlock-chaos/main");
        assertThat(offenders).as("files outside dlock-core that use io.dlock.internal").isEmpty();
    }

    /** @return every {@code src/main/java} and {@code src/test/java} below {@code root}, build output excluded */
    private static List<Path> sourceSets(Path root) throws IOException {
        try (Stream<Path> dirs = Files.walk(root, 6)) {
            return dirs.filter(Files::isDirectory)
                    .filter(d -> d.getFileName().toString().equals("java"))
                    .filter(d -> d.getParent().getParent().getFileName().toString().equals("src"))
                    .filter(d -> Set.of("main", "test").contains(d.getParent().getFileName().toString()))
                    .filter(d -> root.relativize(d).toString().indexOf("target") < 0)
                    .sorted().toList();
        }
    }

    private static boolean usesInternals(Path file) {
        try {
            return Files.readAllLines(file).stream()
                    .map(line -> STRING_LITERAL.matcher(line).replaceAll("\"\""))
                    .anyMatch(line -> USE.matcher(line).find());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
