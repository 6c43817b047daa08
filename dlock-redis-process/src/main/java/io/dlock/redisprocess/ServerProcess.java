package io.dlock.redisprocess;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a {@code redis-server}: from the start of the OS process, through readiness, pauses and resumes, to its
 * exit. A {@link RedisServer} makes a new one for each (re)start. While alive it is registered with
 * {@link LiveServers} and has a pid file ({@link OrphanReaper}); both go when it has exited.
 *
 * <p>The lifecycle methods are called under the owning {@link RedisServer}'s lock; the queries and
 * {@link #killForShutdown()} (from the shutdown hook) are not, hence the volatile state.
 */
final class ServerProcess {
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(ServerProcess.class);
    private static final int FAILURE_LOG_LINES = 50;
    private static final long READY_POLL_MILLIS = 10;
    private static final Duration READY_CALL_TIMEOUT = Duration.ofMillis(250);

    private final Process process;
    private final Path dir;
    private volatile Path pidFile;
    private volatile boolean paused;
    private volatile String version;
    private volatile String product;

    private ServerProcess(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /**
     * Starts {@code command} in {@code dir} (output appended to {@code dir/stdout.log}) and blocks until the server
     * answers {@code INFO} on {@code port} with its own process id, so a stranger on the port does not count.
     *
     * @param tls sockets for a TLS-only server, or null
     * @throws StartFailedException when it exits, does not answer within {@code startupTimeout}, or the thread is
     *                              interrupted (flag kept); the process is gone then and the message holds the tail of
     *                              its log
     * @throws IllegalStateException when the binary cannot be run at all
     */
    static ServerProcess start(Path binary, List<String> command, Path dir, int port, SSLSocketFactory tls,
                               Duration startupTimeout) {
        Path logFile = dir.resolve(ServerFiles.LOG_FILE);
        Path outFile = dir.resolve(ServerFiles.STDOUT_FILE);
        long logOffset = ServerFiles.sizeQuietly(logFile);
        long outOffset = ServerFiles.sizeQuietly(outFile);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(outFile.toFile()));
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary + ": " + e.getMessage(), e);
        }
        try {
            p.getOutputStream().close();
        } catch (IOException ignored) {
            // stdin is unused
        }
        ServerProcess started = new ServerProcess(p, dir);
        LiveServers.add(started);
        started.pidFile = OrphanReaper.writePidFile(p, binary, dir);
        String failure = started.awaitReady(port, tls, startupTimeout);
        if (failure != null) {
            Signals.destroyForciblyAndWait(p);
            started.exited();
            String output = ServerFiles.readQuietly(logFile, logOffset) + ServerFiles.readQuietly(outFile, outOffset);
            throw new StartFailedException("redis-server failed to start on " + RedisServer.HOST + ":" + port + ": "
                    + failure + "\ncommand: " + command + "\nlog tail:\n" + ServerFiles.tail(output, FAILURE_LOG_LINES),
                    output.contains("Address already in use"));
        }
        return started;
    }

    /** @return null once ready, else why it is not */
    private String awaitReady(int port, SSLSocketFactory tls, Duration startupTimeout) {
        long deadline = System.nanoTime() + startupTimeout.toNanos();
        String marker = "process_id:" + process.pid() + "\r\n";
        while (true) {
            if (!process.isAlive()) {
                return "it exited with code " + process.exitValue();
            }
            try {
                String info = Resp.call(tls, RedisServer.HOST, port, READY_CALL_TIMEOUT, "INFO", "server");
                // a stranger may own the port while our process is about to fail with "Address already in use"
                if (info != null && info.contains(marker)) {
                    version = Resp.infoField(info, "redis_version");
                    product = product(info);
                    return null;
                }
            } catch (Resp.ErrorReplyException e) {
                // INFO renamed or disabled (rename-command INFO ""): the server's own directory identifies it
                if (answersWithOwnDir(port, tls)) {
                    return null;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                return "it did not answer within " + startupTimeout.toMillis() + " ms";
            }
            try {
                Thread.sleep(READY_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "the starting thread was interrupted";
            }
        }
    }

    /** @return whether the server on {@code port} answers {@code CONFIG GET dir} with this server's directory */
    private boolean answersWithOwnDir(int port, SSLSocketFactory tls) {
        try {
            Object reply = Resp.command(tls, RedisServer.HOST, port, READY_CALL_TIMEOUT, "CONFIG", "GET", "dir");
            // Redis reports the directory it changed into, with symbolic links resolved
            return reply instanceof List<?> pair && pair.size() == 2
                    && dir.toRealPath().toString().equals(String.valueOf(pair.get(1)));
        } catch (IOException e) {
            return false;
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** @return whether alive and stopped by {@link #pause()} */
    boolean isPaused() {
        return paused && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** @return {@code redis_version} from {@code INFO}, as it answered when ready; null when INFO is disabled */
    String version() {
        return version;
    }

    /** @return the server's own name and version from {@code INFO} (see {@link #product(String)}); null likewise */
    String product() {
        return product;
    }

    /**
     * The server's own name and version: {@code "Valkey 8.1.1"} for a server whose {@code INFO} has
     * {@code server_name:valkey} (Valkey keeps {@code redis_version} at the Redis line it is compatible with, 7.2.4,
     * and reports its own in {@code valkey_version}), else {@code "Redis <redis_version>"}.
     */
    static String product(String info) {
        if (Resp.infoField(info, "server_name").equalsIgnoreCase("valkey")) {
            return "Valkey " + Resp.infoField(info, "valkey_version");
        }
        return "Redis " + Resp.infoField(info, "redis_version");
    }

    /** SIGCONT if paused, SIGTERM, SIGKILL after 5 s; blocks until exited. Interrupted: SIGKILL at once (flag kept). */
    void stop() {
        if (process.isAlive()) {
            if (paused) {
                Signals.signalQuietly("CONT", process.pid());
            }
            process.destroy();
            try {
                if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn("redis-server pid {} did not exit within {} s of SIGTERM; killing it", process.pid(),
                            STOP_TIMEOUT.toSeconds());
                    Signals.destroyForciblyAndWait(process);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Signals.destroyForciblyAndWait(process);
            }
        }
        exited();
    }

    /** SIGKILL; blocks until exited. */
    void kill() {
        Signals.destroyForciblyAndWait(process);
        exited();
    }

    /** SIGSTOP; blocks until the kernel reports it stopped (Linux). Idempotent. The caller checked it is alive. */
    void pause() {
        if (paused) {
            return;
        }
        Signals.signal("STOP", process.pid());
        Signals.awaitStopState(process.pid(), true);
        paused = true;
    }

    /** SIGCONT if paused and alive; blocks until the kernel reports it running (Linux). */
    void resume() {
        if (!paused || !process.isAlive()) {
            paused = false;
            return;
        }
        Signals.signal("CONT", process.pid());
        Signals.awaitStopState(process.pid(), false);
        paused = false;
    }

    /** Bookkeeping once the process has exited: not paused, not live, no pid file. */
    private void exited() {
        paused = false;
        LiveServers.remove(this);
        Path f = pidFile;
        pidFile = null;
        if (f != null) {
            ServerFiles.deleteQuietly(f);
        }
    }

    /** From the shutdown hook: SIGCONT if paused, SIGKILL, wait up to 2 s, then delete the pid file and directory. */
    void killForShutdown() {
        if (process.isAlive()) {
            if (paused) {
                Signals.signalQuietly("CONT", process.pid());
            }
            process.destroyForcibly();
            try {
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (process.isAlive()) {
            return;
        }
        Path f = pidFile;
        if (f != null) {
            ServerFiles.deleteQuietly(f);
        }
        ServerFiles.deleteTreeQuietly(dir);
    }
}
