package io.dlock.redisprocess;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pid files, and the reaping of servers whose JVM is gone. Each started process gets a marker file
 * {@code <base>/pids/<server pid>.<owner JVM pid>} recording its binary, directory and the start times of server and
 * owner; {@link #reap()} kills the servers whose owner JVM no longer runs (say it was SIGKILLed, so its shutdown hook
 * never ran), after checking that the process still is that {@code redis-server}, so a reused pid is never killed.
 */
final class OrphanReaper {
    private static final Logger LOG = LoggerFactory.getLogger(OrphanReaper.class);
    /** How far a recorded start time may be from what the OS reports for the same process. */
    private static final long START_TOLERANCE_MILLIS = 2_000;

    private OrphanReaper() {
    }

    static Path pidDir() {
        return ServerFiles.baseDir().resolve("pids");
    }

    /**
     * Writes the marker file of a process this JVM just started.
     *
     * @return the file, or null when it could not be written (logged: a SIGKILLed JVM would then leave it running)
     */
    static Path writePidFile(Process p, Path binary, Path dir) {
        Path f = pidDir().resolve(p.pid() + "." + ProcessHandle.current().pid());
        Properties props = new Properties();
        props.setProperty("binary", binary.toString());
        props.setProperty("dir", dir.toAbsolutePath().toString());
        p.info().startInstant().ifPresent(i -> props.setProperty("serverStart", Long.toString(i.toEpochMilli())));
        ProcessHandle.current().info().startInstant()
                .ifPresent(i -> props.setProperty("ownerStart", Long.toString(i.toEpochMilli())));
        try {
            Files.createDirectories(f.getParent());
            try (Writer w = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                props.store(w, "redis-server started by dlock-redis-process");
            }
            return f;
        } catch (IOException e) {
            LOG.warn("cannot write {}; a SIGKILLed JVM would leave this redis-server running", f, e);
            return null;
        }
    }

    /** {@link #reap(Path)} on the shared pid directory; logs a warning when it killed something. Never throws. */
    static int reap() {
        Path dir = pidDir();
        try {
            int reaped = reap(dir);
            if (reaped > 0) {
                LOG.warn("killed {} redis-server process(es) left behind by JVMs that are gone", reaped);
            }
            return reaped;
        } catch (RuntimeException e) {
            LOG.warn("could not check {} for orphaned redis-server processes", dir, e);
            return 0;
        }
    }

    /**
     * Kills the redis-server processes listed in {@code pidDir} whose owner JVM is no longer alive, and deletes their
     * files. A listed process is killed only if its command line still names redis-server or valkey-server (or the
     * recorded binary)
     * and, where the OS tells, its start time matches.
     *
     * @return how many processes were killed
     */
    static int reap(Path pidDir) {
        if (!Files.isDirectory(pidDir)) {
            return 0;
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(pidDir)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            LOG.warn("cannot list {}", pidDir, e);
            return 0;
        }
        int killed = 0;
        for (Path f : files) {
            String[] parts = f.getFileName().toString().split("\\.");
            if (parts.length != 2) {
                continue;
            }
            long serverPid;
            long ownerPid;
            try {
                serverPid = Long.parseLong(parts[0]);
                ownerPid = Long.parseLong(parts[1]);
            } catch (NumberFormatException e) {
                continue;
            }
            Properties props = new Properties();
            try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
                props.load(r);
            } catch (NoSuchFileException e) {
                continue; // another JVM reaped it
            } catch (IOException | IllegalArgumentException e) {
                // unreadable: decide on the file name alone
            }
            if (isAlive(ownerPid, props.getProperty("ownerStart"))) {
                continue;
            }
            if (killIfOurRedis(serverPid, props)) {
                killed++;
            }
            String d = props.getProperty("dir");
            if (d != null && ServerFiles.isServerDir(Paths.get(d))) {
                ServerFiles.deleteTreeQuietly(Paths.get(d).toAbsolutePath().normalize());
            }
            ServerFiles.deleteQuietly(f);
        }
        return killed;
    }

    private static boolean killIfOurRedis(long serverPid, Properties props) {
        Optional<ProcessHandle> server = ProcessHandle.of(serverPid);
        if (server.isEmpty() || !server.get().isAlive()
                || !isOurRedis(server.get(), props.getProperty("binary"), props.getProperty("serverStart"))) {
            return false;
        }
        Signals.signalQuietly("CONT", serverPid);
        server.get().destroyForcibly();
        try {
            server.get().onExit().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception ignored) {
            // best effort
        }
        return true;
    }

    private static boolean isAlive(long pid, String recordedStartMillis) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive()) {
            return false;
        }
        // a live process with another start time is a new process that reused the pid
        return startMatches(handle.get(), recordedStartMillis);
    }

    private static boolean isOurRedis(ProcessHandle handle, String recordedBinary, String recordedStartMillis) {
        ProcessHandle.Info info = handle.info();
        // redis-server rewrites its argv ("redis-server 127.0.0.1:6379"), and its executable may be a symlink
        // (Debian: redis-server -> redis-check-rdb), so look at /proc/<pid>/cmdline as well as at what Java reports.
        // Valkey calls itself valkey-server, and a launcher that runs it through its own dynamic loader
        // (.ci/server-lines) leaves the loader as the process's executable, the server's path among its arguments
        String procCmdline = ServerFiles.readQuietly(Paths.get("/proc", Long.toString(handle.pid()), "cmdline"), 0)
                .replace('\0', ' ');
        String commandLine = procCmdline + " " + info.commandLine().orElse("") + " " + info.command().orElse("")
                + " " + String.join(" ", info.arguments().orElse(new String[0]));
        boolean looksLikeRedis = commandLine.contains("redis-server") || commandLine.contains("valkey-server");
        if (!looksLikeRedis && recordedBinary != null) {
            String recordedExecutable = info.command().orElse(null);
            looksLikeRedis = recordedExecutable != null && recordedExecutable.equals(realPath(recordedBinary));
        }
        return looksLikeRedis && startMatches(handle, recordedStartMillis);
    }

    private static String realPath(String path) {
        try {
            return Paths.get(path).toRealPath().toString();
        } catch (IOException | RuntimeException e) {
            return path;
        }
    }

    private static boolean startMatches(ProcessHandle handle, String recordedStartMillis) {
        if (recordedStartMillis == null) {
            return true;
        }
        Optional<Instant> start = handle.info().startInstant();
        if (start.isEmpty()) {
            return true;
        }
        try {
            return Math.abs(start.get().toEpochMilli() - Long.parseLong(recordedStartMillis)) <= START_TOLERANCE_MILLIS;
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
