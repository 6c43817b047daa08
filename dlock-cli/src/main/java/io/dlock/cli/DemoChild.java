package io.dlock.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of the demo running {@link DemoWorker}: the demo's own java and class path, a small heap, fast
 * start-up, stderr shared with the demo. Its stdout lines are read into a queue as they come; it exits when its
 * stdin closes, so it does not outlive the demo.
 */
final class DemoChild {
    /** How long a child may take to say what is awaited. */
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final OutputStream stdin;

    /** @param process started by {@link #launch} */
    DemoChild(Process process) {
        this.process = process;
        this.stdin = process.getOutputStream();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the child is gone
            }
        }, "demo-child-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code DemoWorker args}. */
    static Process launch(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DemoWorker.class.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    Process process() {
        return process;
    }

    /** @return the child's next line that starts with {@code prefix}; earlier lines are dropped */
    String await(String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && (System.nanoTime() >= deadline || !process.isAlive() && lines.isEmpty())) {
                throw new IllegalStateException("JVM " + process.pid() + " did not say '" + prefix.strip()
                        + "' (" + (process.isAlive() ? "timed out" : "exited with " + process.exitValue()) + ")");
            }
        }
    }

    void send(String line) throws IOException {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
