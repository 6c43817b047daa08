package io.dlock.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/** One worker JVM as seen from the orchestrator: its process, its event log and its loops' hold fields. */
final class WorkerProcess {
    final String id;
    final Process process;
    final Path eventLog;
    /** Its client id, the prefix of every hold field it writes ({@code <client id>:<owner id>…}), once known. */
    private volatile String clientId;
    /** Its loops by hold field ({@code <client id>:<thread id>} → {@code w3/rw/t1}), as their HELLOs say. */
    private final Map<String, String> loopsByField = new ConcurrentHashMap<>();

    private WorkerProcess(String id, Process process, Path eventLog) {
        this.id = id;
        this.process = process;
        this.eventLog = eventLog;
    }

    /** Starts {@code java -cp <classPath> io.dlock.chaos.Worker …}. */
    static WorkerProcess start(String id, Path outDir, String classPath, String redisUri, int storePort,
                               ChaosSettings settings, Path stopFile, long seed) {
        Path eventLog = outDir.resolve(id + ".events");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx96m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-cp");
        command.add(classPath);
        command.add(Worker.class.getName());
        command.addAll(new WorkerArgs(id, redisUri, storePort, settings.watchdogMs(), settings.commandTimeoutMs(),
                outDir, stopFile, seed, settings.stepMaxMs(), settings.threads(), settings.localHandoffs()).toArgs());
        try {
            Process process = new ProcessBuilder(command)
                    .redirectOutput(outDir.resolve(id + ".out").toFile())
                    .redirectError(outDir.resolve(id + ".err").toFile())
                    .start();
            return new WorkerProcess(id, process, eventLog);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + id, e);
        }
    }

    /**
     * This JVM's class path, with dlock's own entries (jars or class directories of the modules, which a build running
     * beside the run may rewrite) copied into {@code dir} first, so that workers started late in a run load the same
     * classes as the first ones. Third-party jars are used where they are.
     */
    static String snapshotClassPath(Path dir) {
        StringBuilder path = new StringBuilder();
        int n = 0;
        for (String entry : expandManifestClassPaths(System.getProperty("java.class.path"))) {
            Path source = Path.of(entry);
            String used = entry;
            if (source.toString().contains("dlock-") && Files.exists(source)) {
                Path copy = dir.resolve((n++) + "-" + source.getFileName());
                copyTree(source, copy);
                used = copy.toString();
            }
            if (path.length() > 0) {
                path.append(File.pathSeparator);
            }
            path.append(used);
        }
        return path.toString();
    }

    /**
     * The entries of a class path, with a jar whose manifest has a {@code Class-Path} (as the test runner's "booter"
     * jar) replaced by that list.
     */
    private static List<String> expandManifestClassPaths(String classPath) {
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            List<String> listed = List.of();
            if (entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry))) {
                try (JarFile jar = new JarFile(entry)) {
                    Manifest manifest = jar.getManifest();
                    String value = manifest == null ? null
                            : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
                    if (value != null && !value.isBlank()) {
                        listed = new ArrayList<>();
                        for (String url : value.trim().split("\\s+")) {
                            listed.add(Path.of(Path.of(entry).getParent().toUri().resolve(url)).toString());
                        }
                    }
                } catch (IOException | IllegalArgumentException e) {
                    listed = List.of();
                }
            }
            if (listed.isEmpty()) {
                entries.add(entry);
            } else {
                entries.addAll(listed);
            }
        }
        return entries;
    }

    private static void copyTree(Path source, Path target) {
        try (var paths = Files.walk(source)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path to = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + source + " to " + target, e);
        }
    }

    /**
     * Waits for the worker's HELLO.
     *
     * @return the HELLO event
     * @throws IllegalStateException when it does not come in time or the worker exits first
     */
    Event awaitHello(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (Event e : EventLog.read(eventLog)) {
                if (e.type() == Event.Type.HELLO) {
                    clientId = e.detail();
                    return e;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("worker " + id + " exited with " + process.exitValue()
                        + " before saying HELLO (see " + eventLog.resolveSibling(id + ".err") + ")");
            }
            sleep(20);
        }
        throw new IllegalStateException("worker " + id + " did not say HELLO within " + timeout.toMillis() + " ms");
    }

    /** @return whether {@code field} of a lock hash is one of this worker's holds */
    boolean owns(String field) {
        String id = clientId;
        return id != null && field.startsWith(id + ":");
    }

    /**
     * @return the loop ({@code w3/rw/t1}) whose hold field is {@code field} (a writer's {@code :write} suffix
     * ignored), or this worker's id when no loop of it has said so
     */
    String loopOf(String field) {
        String owner = field.endsWith(Workload.WRITER_SUFFIX)
                ? field.substring(0, field.length() - Workload.WRITER_SUFFIX.length()) : field;
        String loop = loopsByField.get(owner);
        if (loop == null) {
            readLoopHellos();
            loop = loopsByField.getOrDefault(owner, id);
        }
        return loop;
    }

    /** Each loop says HELLO, with its hold field, in its own file ({@code w3-rw-t1.events}) before its first hold. */
    private void readLoopHellos() {
        try (Stream<Path> files = Files.list(eventLog.getParent())) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (!name.startsWith(id + "-") || !name.endsWith(".events")) {
                    continue;
                }
                for (Event e : EventLog.read(file)) {
                    if (e.type() == Event.Type.HELLO) {
                        loopsByField.put(e.detail(), e.source());
                        break;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + eventLog.getParent(), e);
        }
    }

    /**
     * Whether a loop's own log says it was inside a hold entered before {@code nanos}: its last ACQUIRED came before
     * then and no EXIT of that token followed (what the checker takes for a hold across a fault). Read while the
     * worker is stopped, the log is whole (flushed line by line).
     *
     * @param loop its event source, {@code w3/rw/t1}
     */
    boolean loggedInsideSince(String loop, long nanos) {
        Event acquired = null;
        for (Event e : EventLog.read(eventLog.getParent().resolve(loop.replace('/', '-') + ".events"))) {
            if (e.type() == Event.Type.ACQUIRED) {
                acquired = e;
            } else if (e.type() == Event.Type.EXIT && acquired != null && e.token() == acquired.token()) {
                acquired = null;
            }
        }
        return acquired != null && acquired.nanos() - nanos < 0;
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL; waits (bounded) until it is gone. */
    void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(10));
    }

    /** @return whether it exited within {@code timeout} */
    boolean awaitExit(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Sends a signal ({@code STOP}, {@code CONT}) with {@code kill(1)}. */
    void signal(String signal) {
        Processes.signal(signal, process.pid());
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
