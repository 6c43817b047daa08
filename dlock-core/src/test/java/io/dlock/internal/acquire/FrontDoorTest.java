package io.dlock.internal.acquire;

import io.dlock.internal.latch.LatchServices;
import io.dlock.internal.lock.LockServices;
import io.dlock.internal.semaphore.SemaphoreServices;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The front door's rules, read from dlock-core's sources and classes (docs/architecture.md §3.2): every acquisition
 * and wait is let in by {@link Acquisitions#begin}, so the start and end events are reported from one place
 * ({@link Subject}), an {@link Admission} is made only there, and each wing's services are the client's shared parts
 * plus a few of its own.
 */
class FrontDoorTest {
    private static final Path INTERNAL = Path.of("src", "main", "java", "io", "dlock", "internal");
    private static final Pattern EVENT_START_OR_END = Pattern.compile(
            "\\.(acquisitionStarted|permitAcquisitionStarted|latchAwaitStarted|permitAcquisitionEnded|latchAwaitEnded)"
                    + "\\(|EventSink\\.ended\\(");

    /** @return each internal source file (relative to {@link #INTERNAL}) whose text matches {@code pattern} */
    private static Map<String, Long> filesMatching(Pattern pattern) {
        assertThat(INTERNAL).as("dlock-core's internal sources").isDirectory();
        Map<String, Long> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(INTERNAL)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                long hits = pattern.matcher(Files.readString(file)).results().count();
                if (hits > 0) {
                    found.put(INTERNAL.relativize(file).toString().replace('\\', '/'), hits);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    @Test
    void startAndEndEventsAreReportedFromOnePlace() {
        assertThat(filesMatching(EVENT_START_OR_END).keySet())
                .as("internal sources that report an acquisition's or a wait's start or end to the listeners")
                .containsExactlyInAnyOrder("acquire/Subject.java", "events/EventSink.java");
    }

    @Test
    void admissionsAreMadeOnlyByTheFrontDoor() {
        assertThat(filesMatching(Pattern.compile("new Admission\\(")).keySet())
                .containsExactly("acquire/Acquisitions.java");
    }

    @Test
    void theMonotonicClockIsReadOnlyByTheClientClock() {
        assertThat(filesMatching(Pattern.compile("System\\.nanoTime\\(|System::nanoTime")).keySet())
                .as("internal sources that read System.nanoTime themselves, not through the client's clock")
                .containsExactly("parts/ClientClock.java");
    }

    @Test
    void eachWingsServicesTakeAtMostFourParameters() {
        for (Class<?> services : List.of(LockServices.class, SemaphoreServices.class, LatchServices.class)) {
            for (Constructor<?> constructor : services.getDeclaredConstructors()) {
                assertThat(constructor.getParameterCount()).as("%s", constructor).isLessThanOrEqualTo(4);
            }
        }
    }
}
