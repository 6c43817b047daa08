package io.dlock;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Micrometer is an optional dependency: only the metrics classes may mention its types, so that every other class of
 * the library loads (and the library runs) without it on the class path; in particular no signature of the API
 * outside {@code io.dlock.metrics} names a Micrometer type (reflecting on such a class without Micrometer would
 * fail). Checked on the compiled classes: a class that
 * refers to a Micrometer type names it in its constant pool ({@code io/micrometer/...}). That the library indeed runs
 * without Micrometer is shown by {@code MetricsAbsentIT} in dlock-it, which locks in a JVM without it.
 */
class MicrometerIsolationTest {

    /** The classes allowed to refer to Micrometer (their nested classes included). */
    private static final Set<String> METRICS_CLASSES = Set.of(
            "io/dlock/metrics/LockMetrics",
            "io/dlock/metrics/MicrometerLockEvents",
            "io/dlock/metrics/MicrometerMeters",
            "io/dlock/metrics/SynchronizerMeters",
            "io/dlock/metrics/ElectionMeters");

    @Test
    void onlyTheMetricsClassesReferToMicrometer() throws Exception {
        Path root = classesRoot();
        List<String> offenders;
        try (Stream<Path> files = Files.walk(root)) {
            offenders = files.filter(f -> f.toString().endsWith(".class"))
                    .filter(MicrometerIsolationTest::refersToMicrometer)
                    .map(f -> root.relativize(f).toString().replace('\\', '/'))
                    .filter(name -> !METRICS_CLASSES.contains(name.replaceFirst("(\\$.*)?\\.class$", "")))
                    .sorted()
                    .collect(Collectors.toList());
        }
        assertThat(offenders).as("classes outside the metrics ones that refer to io.micrometer").isEmpty();
    }

    @Test
    void theCheckWouldSeeAReference() throws Exception {
        assertThat(refersToMicrometer(classesRoot().resolve("io/dlock/metrics/LockMetrics.class"))).isTrue();
        assertThat(refersToMicrometer(classesRoot().resolve("io/dlock/LockClient.class"))).isFalse();
    }

    private static Path classesRoot() throws URISyntaxException {
        return Path.of(Objects.requireNonNull(LockClient.class.getResource("LockClient.class")).toURI())
                .getParent().getParent().getParent();
    }

    private static boolean refersToMicrometer(Path classFile) {
        try {
            // constant-pool class and descriptor names are modified UTF-8, plain ASCII here
            return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains("io/micrometer/");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
