package io.dlock.it.support;

import io.dlock.redisprocess.Await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A second JVM running a {@code main} class of the test sources with the test's own class path. Its stdout and stderr
 * go to files under {@code target/it-logs/} (read them with {@link #stdout()} / {@link #describe()}); {@link #close()}
 * kills it if it still runs.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Path LOG_DIR = Path.of("target", "it-logs");

    private final String label;
    private final Process process;
    private final Path out;
    private final Path err;

    private ChildJvm(String label, Process process, Path out, Path err) {
        this.label = label;
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * Starts {@code java -cp <our class path> main args…}.
     *
     * @param label names the log files; unique per test
     */
    public static ChildJvm start(String label, Class<?> main, String... args) {
        return start(label, System.getProperty("java.class.path"), main, args);
    }

    /**
     * Starts {@code java -cp <our class path without the entries whose path contains excluded> main args…}: a JVM
     * without an optional dependency.
     */
    public static ChildJvm startWithout(String excluded, String label, Class<?> main, String... args) {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.replace('\\', '/').contains(excluded))
                .collect(Collectors.joining(File.pathSeparator));
        return start(label, classPath, main, args);
    }

    private static ChildJvm start(String label, String classPath, Class<?> main, String... args) {
        try {
            Files.createDirectories(LOG_DIR);
            Path out = LOG_DIR.resolve(label + ".out");
            Path err = LOG_DIR.resolve(label + ".err");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // small and quick to start: these children do little but wait on Redis
            command.add("-Xmx128m");
            command.add("-XX:+UseSerialGC");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-cp");
            command.add(classPath);
            command.add(main.getName());
            command.addAll(List.of(args));
            Process process = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            return new ChildJvm(label, process, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start child JVM " + label, e);
        }
    }

    public Process process() {
        return process;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** @return the child's stdout so far */
    public String stdout() {
        return read(out);
    }

    /** @return the child's stderr so far */
    public String stderr() {
        return read(err);
    }

    /** Waits until a line of stdout starts with {@code prefix}; fails early if the child exits. */
    public String awaitLine(String prefix, Duration timeout) {
        String[] found = new String[1];
        Await.until(timeout, () -> {
            for (String line : stdout().split("\n")) {
                if (line.startsWith(prefix)) {
                    found[0] = line.strip();
                    return true;
                }
            }
            if (!process.isAlive()) {
                throw new AssertionError("child exited with " + process.exitValue() + " before printing "
                        + prefix);
            }
            return false;
        }, () -> "no line starting with '" + prefix + "' from " + describe());
        return found[0];
    }

    /**
     * Waits for the child to exit.
     *
     * @return its exit code
     * @throws AssertionError when it still runs after {@code timeout}
     */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("child still running after " + timeout.toMillis() + " ms: " + describe());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return process.exitValue();
    }

    /** Kills the child with SIGKILL and waits (bounded) until it is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new AssertionError("child did not die after SIGKILL: " + label);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** @return a description with the tail of both logs, for failure messages */
    public String describe() {
        return "child " + label + " (pid " + process.pid() + ", " + (process.isAlive() ? "running" : "exit "
                + process.exitValue()) + ")\n--- stdout ---\n" + tail(stdout()) + "\n--- stderr ---\n"
                + tail(stderr());
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String tail(String text) {
        int max = 6000;
        return text.length() <= max ? text : "…" + text.substring(text.length() - max);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "<cannot read " + file + ": " + e + ">";
        }
    }
}
