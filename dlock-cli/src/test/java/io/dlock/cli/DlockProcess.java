package io.dlock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code dlock} jar ({@code target/dlock.jar}, built in the package phase) run as a process, with its
 * output collected. Every started process is remembered; {@link #killAll()} (call it in an {@code @AfterEach})
 * SIGKILLs those still running and their descendants.
 */
final class DlockProcess {
    static final Path JAR = Path.of("target/dlock.jar");
    private static final List<DlockProcess> STARTED = new CopyOnWriteArrayList<>();

    final Process process;
    final List<String> commandLine;
    private final StringBuffer out = new StringBuffer();
    private final StringBuffer err = new StringBuffer();
    private final Thread outReader;
    private final Thread errReader;

    private DlockProcess(Process process, List<String> commandLine) {
        this.process = process;
        this.commandLine = commandLine;
        this.outReader = pump(process.getInputStream(), out, "out");
        this.errReader = pump(process.getErrorStream(), err, "err");
    }

    /** Starts {@code dlock args…} without {@code $DLOCK_REDIS} unless {@code env} sets it. */
    static DlockProcess start(Map<String, String> env, String... args) {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: run the tests with `mvn verify` "
                    + "(the jar is built in the package phase)");
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-jar");
        command.add(JAR.toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("DLOCK_REDIS");
        builder.environment().putAll(env);
        try {
            DlockProcess p = new DlockProcess(builder.start(), command);
            STARTED.add(p);
            p.process.getOutputStream().close(); // no stdin
            return p;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command, e);
        }
    }

    static DlockProcess start(String... args) {
        return start(Map.of(), args);
    }

    /** Runs {@code dlock args…} to completion (at most {@code timeout}, else killed and failed). */
    static DlockProcess run(Duration timeout, String... args) {
        return start(args).waitFor(timeout);
    }

    static DlockProcess run(String... args) {
        return run(Duration.ofSeconds(30), args);
    }

    DlockProcess waitFor(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
                throw new AssertionError("dlock did not exit within " + timeout + ": " + describe());
            }
            outReader.join(5000);
            errReader.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return this;
    }

    int exitCode() {
        return process.exitValue();
    }

    String stdout() {
        return out.toString();
    }

    String stderr() {
        return err.toString();
    }

    /** For assertion messages. */
    String describe() {
        return String.join(" ", commandLine.subList(4, commandLine.size())) + "\n--- exit: "
                + (process.isAlive() ? "(running)" : process.exitValue()) + "\n--- stdout:\n" + stdout()
                + "\n--- stderr:\n" + stderr();
    }

    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    static void killAll() {
        for (DlockProcess p : STARTED) {
            if (p.process.isAlive()) {
                p.kill();
            }
        }
        STARTED.clear();
    }

    private static Thread pump(InputStream stream, StringBuffer into, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                char[] buf = new char[4096];
                int n;
                while ((n = r.read(buf)) >= 0) {
                    into.append(buf, 0, n);
                }
            } catch (IOException e) {
                // process gone
            }
        }, "dlock-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
