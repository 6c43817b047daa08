package io.dlock.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process listening on {@code 127.0.0.1}, without persistence, for tests.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     LockClient client = LockClient.connect(redis.uri());
 *     ...
 *     redis.pause();   // SIGSTOP: the server stops answering
 *     redis.resume();  // SIGCONT
 *     redis.restart(); // same port, empty database
 * }
 * }</pre>
 *
 * <p>The server runs with {@code --bind 127.0.0.1 --save '' --appendonly no --protected-mode no --daemonize no}, its
 * working directory and log file in a private temporary directory. The binary is chosen by {@link RedisBinary}
 * unless {@link Builder#binary(Path)} gives one.
 *
 * <p><b>No orphans.</b> Every started process is registered in a JVM-wide registry; one shutdown hook kills (SIGCONT,
 * then SIGKILL) every server still running when the JVM exits. Each process also gets a marker file
 * {@code ${java.io.tmpdir}/dlock-testkit/pids/<server pid>.<owner JVM pid>}; when this class is initialised it kills
 * the servers whose owner JVM is gone (say it was SIGKILLed), after checking the process still is that
 * {@code redis-server}.
 *
 * <p><b>Thread-safety.</b> All methods may be called from any thread. Lifecycle methods ({@code stop}, {@code restart},
 * {@code pause}, ...) are serialised on this instance; queries ({@link #port()}, {@link #isRunning()}, {@link #log()},
 * ...) do not wait for them. Only Unix-like systems (Linux, macOS) are supported: pause/resume send signals with
 * {@code kill}.
 */
public final class RedisServer implements RedisTopology {

    /** The address every server binds to: {@value}. */
    public static final String HOST = "127.0.0.1";

    static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(5);
    private static final int FREE_PORT_ATTEMPTS = 5;
    private static final Duration RESTART_PORT_RETRY = Duration.ofSeconds(5);
    private static final int FAILURE_LOG_LINES = 50;
    private static final Set<String> MANAGED_OPTIONS = Set.of("bind", "port", "dir", "logfile", "daemonize");

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);
    private static final Path PID_DIR = RedisBinary.cacheDir().resolve("pids");
    private static final Path SERVERS_DIR = RedisBinary.cacheDir().resolve("servers");
    private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        try {
            int reaped = reapOrphans();
            if (reaped > 0) {
                LOG.warn("killed {} redis-server process(es) left behind by JVMs that are gone", reaped);
            }
        } catch (RuntimeException e) {
            LOG.warn("could not check {} for orphaned redis-server processes", PID_DIR, e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(RedisServer::killAllLive, "dlock-testkit-redis-reaper"));
    }

    private final Path binary;
    private final int requestedPort;
    private final List<String> extraArgs;
    private final Duration startupTimeout;
    /** The initial {@code sentinel.conf} of a server run with {@code --sentinel}, or null for a data server. */
    private final String sentinelConfig;
    /** Whether TLS clients must present a certificate; null for a plain-text server. */
    private final ClientAuth tlsClientAuth;
    /** The certificates of a TLS server (made with its private directory), and sockets that trust them. */
    private volatile TlsCertificates certificates;
    private volatile javax.net.ssl.SSLSocketFactory tlsSockets;

    private volatile Path dir;
    private volatile Process process;
    private volatile Path pidFile;
    private volatile boolean paused;
    private volatile int port;
    private volatile String version;

    private RedisServer(Builder b) {
        this.binary = b.binary;
        this.requestedPort = b.port;
        this.extraArgs = List.copyOf(b.extraArgs);
        this.startupTimeout = b.startupTimeout;
        this.sentinelConfig = b.sentinelConfig;
        this.tlsClientAuth = b.tlsClientAuth;
    }

    /** What {@code --tls-auth-clients} asks of TLS clients. */
    public enum ClientAuth {
        /** No client certificate is asked for. */
        NO,
        /** A client may present a certificate (which must then be valid). */
        OPTIONAL,
        /** A client must present a certificate signed by the CA. */
        YES
    }

    /**
     * Starts a server with default settings on a free port; blocks until it answers (at most about 10 s).
     *
     * @throws IllegalStateException when no binary is found or the server does not come up; the message holds the
     *         tail of the server's log
     */
    public static RedisServer start() {
        return builder().start();
    }

    /** @return a builder for a server with non-default settings */
    public static Builder builder() {
        return new Builder();
    }

    // ------------------------------------------------------------------------------------------------ queries

    /** @return {@value #HOST} */
    public String host() {
        return HOST;
    }

    /** @return the TCP port; stays the same across {@link #restart()} */
    public int port() {
        return port;
    }

    /** @return {@code redis://127.0.0.1:<port>}, or {@code rediss://…} for a TLS server */
    @Override
    public String uri() {
        return (tlsClientAuth != null ? "rediss://" : "redis://") + HOST + ":" + port;
    }

    /** @return whether the server speaks TLS only ({@link Builder#tls}) */
    public boolean isTls() {
        return tlsClientAuth != null;
    }

    /**
     * @return the CA, server and client certificates of a TLS server, in its private directory
     * @throws IllegalStateException for a plain-text server
     */
    public TlsCertificates tlsCertificates() {
        TlsCertificates c = certificates;
        if (c == null) {
            throw new IllegalStateException("not a TLS server: " + uri());
        }
        return c;
    }

    /** @return whether the process is alive, paused or not; never blocks */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** @return whether the process is alive and stopped by {@link #pause()} */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * @return the process id of the current process, or of the last one if it is not running any more
     */
    public long pid() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("never started");
        }
        return p.pid();
    }

    /** @return the server's version as it reports it in {@code INFO} (e.g. {@code 7.0.15}) */
    public String version() {
        return version;
    }

    /** @return the {@code redis-server} executable this server runs */
    public Path binary() {
        return binary;
    }

    /**
     * Reads the server's log file: everything it logged since it was first started, restarts included. Returns an
     * empty string after {@link #close()}.
     */
    public String log() {
        Path d = dir;
        return d == null ? "" : readQuietly(d.resolve("redis.log"), 0);
    }

    /** @return the last {@code maxLines} lines of {@link #log()} */
    public String logTail(int maxLines) {
        return tail(log(), maxLines);
    }

    /**
     * Sends {@code PING} on a new connection.
     *
     * @param timeout for connecting and for the answer
     * @return whether {@code +PONG} came back in time; never throws
     */
    public boolean ping(Duration timeout) {
        try {
            return "PONG".equals(Resp.call(tlsSockets, HOST, port, timeout, "PING"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Empties every database with {@code FLUSHALL}; blocks for at most about 5 s.
     *
     * @throws IllegalStateException when the server does not answer {@code OK}
     */
    public void flushAll() {
        try {
            String reply = Resp.call(tlsSockets, HOST, port, Duration.ofSeconds(5), "FLUSHALL");
            if (!"OK".equals(reply)) {
                throw new IllegalStateException("FLUSHALL on " + uri() + " answered " + reply);
            }
        } catch (IOException e) {
            throw new IllegalStateException("FLUSHALL on " + uri() + " failed: " + e, e);
        }
    }

    /**
     * Sends one command on a new connection (for the topologies' own administration).
     *
     * @return the reply: a string (simple, bulk or integer), null, or a list of such for an array
     * @throws IllegalStateException when the server answers with an error or cannot be reached within {@code timeout}
     */
    Object command(Duration timeout, String... args) {
        try {
            return Resp.command(tlsSockets, HOST, port, timeout, args);
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", args) + " on " + HOST + ":" + port + " failed: " + e, e);
        }
    }

    /** @return {@code INFO section} as text, or null when the server does not answer within {@code timeout} */
    String infoOrNull(String section, Duration timeout) {
        try {
            return Resp.call(tlsSockets, HOST, port, timeout, "INFO", section);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    /**
     * Stops the server gracefully: SIGCONT if paused, SIGTERM, then SIGKILL if it has not exited within 5 s. Blocks
     * until the process has exited. Idempotent; a no-op when not running. If the calling thread is interrupted, the
     * process is killed at once and the interrupt flag is kept.
     */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (p.isAlive()) {
            if (paused) {
                signalQuietly("CONT", p.pid());
            }
            p.destroy();
            try {
                if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.warn("redis-server pid {} did not exit within {} s of SIGTERM; killing it", p.pid(),
                            STOP_TIMEOUT.toSeconds());
                    destroyForciblyAndWait(p);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                destroyForciblyAndWait(p);
            }
        }
        afterExit(p);
    }

    /**
     * Kills the server with SIGKILL, as a crash would; blocks until the process has exited. A no-op when not
     * running.
     */
    public synchronized void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        destroyForciblyAndWait(p);
        afterExit(p);
    }

    /**
     * Stops the server if it is running (see {@link #stop()}) and starts it again on the same port. The data is lost
     * (there is no persistence). Blocks until it answers; if the port is briefly taken, retries for up to 5 s.
     * Also works after {@link #close()}, with a new temporary directory.
     *
     * @throws IllegalStateException when the server does not come up; the message holds the tail of its log
     */
    public synchronized void restart() {
        stop();
        long deadline = System.nanoTime() + RESTART_PORT_RETRY.toNanos();
        while (true) {
            try {
                launch(port);
                return;
            } catch (StartFailedException e) {
                if (!e.addressInUse || System.nanoTime() > deadline) {
                    throw e;
                }
                sleepUninterruptibly(100);
            }
        }
    }

    /**
     * Freezes the process with SIGSTOP: it keeps its port and its data but answers nothing (clients time out) until
     * {@link #resume()}. Blocks until the kernel reports the process stopped (on Linux). Idempotent.
     *
     * @throws IllegalStateException when the server is not running or the signal cannot be sent
     */
    public synchronized void pause() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("redis-server " + uri() + " is not running");
        }
        if (paused) {
            return;
        }
        signal("STOP", p.pid());
        awaitStopState(p.pid(), true);
        paused = true;
    }

    /**
     * Lets a {@link #pause() paused} process go on with SIGCONT; blocks until the kernel reports it running (on
     * Linux). A no-op when not paused or not running.
     *
     * @throws IllegalStateException when the signal cannot be sent
     */
    public synchronized void resume() {
        Process p = process;
        if (!paused || p == null || !p.isAlive()) {
            paused = false;
            return;
        }
        signal("CONT", p.pid());
        awaitStopState(p.pid(), false);
        paused = false;
    }

    /**
     * {@link #stop() Stops} the server and deletes its temporary directory (log included). Blocks like
     * {@link #stop()}; idempotent; never throws.
     */
    @Override
    public synchronized void close() {
        stop();
        Path d = dir;
        dir = null;
        if (d != null) {
            deleteTreeQuietly(d);
        }
    }

    @Override
    public String toString() {
        Process p = process;
        return "RedisServer[" + uri() + ", pid=" + (p == null ? "-" : p.pid())
                + (isPaused() ? ", paused" : isRunning() ? ", running" : ", stopped") + "]";
    }

    // ------------------------------------------------------------------------------------------------ starting

    /** First start: a given port once, or free ports until one is not taken by a racing process. */
    private synchronized RedisServer startFirst() {
        try {
            if (requestedPort != 0) {
                launch(requestedPort);
                return this;
            }
            StartFailedException last = null;
            for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
                try {
                    launch(freePort());
                    return this;
                } catch (StartFailedException e) {
                    if (!e.addressInUse) {
                        throw e;
                    }
                    last = e;
                }
            }
            throw last;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void launch(int onPort) {
        Path d = ensureDir();
        Path logFile = d.resolve("redis.log");
        Path outFile = d.resolve("stdout.log");
        long logOffset = sizeQuietly(logFile);
        long outOffset = sizeQuietly(outFile);
        if (tlsClientAuth != null && (certificates == null || !certificates.dir().startsWith(d))) {
            certificates = TlsCertificates.generate(d.resolve("tls"));
            tlsSockets = certificates.socketFactory();
        }
        List<String> command = command(onPort, d, logFile);
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(d.toFile())
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
        process = p;
        paused = false;
        port = onPort;
        LIVE.add(this);
        writePidFile(p, d);
        awaitReady(p, onPort, command, logFile, logOffset, outFile, outOffset);
        LOG.debug("started redis-server {} pid {} on {}", version, p.pid(), uri());
    }

    private List<String> command(int onPort, Path d, Path logFile) {
        List<String> cmd = new ArrayList<>(List.of(binary.toString()));
        if (sentinelConfig != null) {
            // Sentinel rewrites its file with what it learns; a restart keeps what the last run wrote.
            Path conf = d.resolve("sentinel.conf").toAbsolutePath();
            try {
                if (!Files.exists(conf)) {
                    Files.writeString(conf, sentinelConfig, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + conf, e);
            }
            cmd.add(conf.toString());
            cmd.add("--sentinel");
        }
        cmd.addAll(List.of("--bind", HOST));
        if (tlsClientAuth != null) {
            cmd.addAll(List.of(
                    "--port", "0",
                    "--tls-port", Integer.toString(onPort),
                    "--tls-cert-file", certificates.serverCertificate().toAbsolutePath().toString(),
                    "--tls-key-file", certificates.serverKey().toAbsolutePath().toString(),
                    "--tls-ca-cert-file", certificates.caCertificate().toAbsolutePath().toString(),
                    "--tls-auth-clients", tlsClientAuth.name().toLowerCase(java.util.Locale.ROOT)));
        } else {
            cmd.addAll(List.of("--port", Integer.toString(onPort)));
        }
        cmd.addAll(List.of(
                "--save", "",
                "--appendonly", "no"));
        if (RedisBinary.hasProtectedMode(binary)) {
            cmd.addAll(List.of("--protected-mode", "no"));
        }
        cmd.addAll(List.of(
                "--daemonize", "no",
                "--dir", d.toAbsolutePath().toString(),
                "--logfile", logFile.toAbsolutePath().toString()));
        cmd.addAll(extraArgs);
        return cmd;
    }

    private void awaitReady(Process p, int onPort, List<String> command, Path logFile, long logOffset, Path outFile,
            long outOffset) {
        long deadline = System.nanoTime() + startupTimeout.toNanos();
        String marker = "process_id:" + p.pid() + "\r\n";
        while (true) {
            if (!p.isAlive()) {
                throw startFailed(p, onPort, "it exited with code " + p.exitValue(), command, logFile, logOffset,
                        outFile, outOffset);
            }
            try {
                String info = Resp.call(tlsSockets, HOST, onPort, Duration.ofMillis(250), "INFO", "server");
                // a stranger may own the port while our process is about to fail with "Address already in use"
                if (info != null && info.contains(marker)) {
                    version = infoField(info, "redis_version");
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw startFailed(p, onPort, "it did not answer within " + startupTimeout.toMillis() + " ms", command,
                        logFile, logOffset, outFile, outOffset);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw startFailed(p, onPort, "the starting thread was interrupted", command, logFile, logOffset,
                        outFile, outOffset);
            }
        }
    }

    private StartFailedException startFailed(Process p, int onPort, String reason, List<String> command, Path logFile,
            long logOffset, Path outFile, long outOffset) {
        destroyForciblyAndWait(p);
        afterExit(p);
        String output = readQuietly(logFile, logOffset) + readQuietly(outFile, outOffset);
        return new StartFailedException("redis-server failed to start on " + HOST + ":" + onPort + ": " + reason
                + "\ncommand: " + command + "\nlog tail:\n" + tail(output, FAILURE_LOG_LINES),
                output.contains("Address already in use"));
    }

    private Path ensureDir() {
        Path d = dir;
        if (d != null && Files.isDirectory(d)) {
            return d;
        }
        try {
            Files.createDirectories(SERVERS_DIR);
            d = Files.createTempDirectory(SERVERS_DIR, "redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for redis-server under " + SERVERS_DIR, e);
        }
        dir = d;
        return d;
    }

    /** Binds 127.0.0.1:0, closes it and returns the port the kernel chose. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + HOST, e);
        }
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        return "unknown";
    }

    // ------------------------------------------------------------------------------------------------ stopping

    private static void destroyForciblyAndWait(Process p) {
        p.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                p.waitFor();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Bookkeeping once process {@code p} has exited. */
    private void afterExit(Process p) {
        if (process == p) {
            paused = false;
            LIVE.remove(this);
            Path f = pidFile;
            pidFile = null;
            if (f != null) {
                deleteQuietly(f);
            }
        }
    }

    /** The shutdown hook: SIGCONT (if paused) and SIGKILL every server still running. Never blocks for long. */
    private static void killAllLive() {
        for (RedisServer server : List.copyOf(LIVE)) {
            server.killForShutdown();
        }
    }

    private void killForShutdown() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (p.isAlive()) {
            if (paused) {
                signalQuietly("CONT", p.pid());
            }
            p.destroyForcibly();
            try {
                p.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Path f = pidFile;
        if (f != null && !p.isAlive()) {
            deleteQuietly(f);
        }
        Path d = dir;
        if (d != null && !p.isAlive()) {
            deleteTreeQuietly(d);
        }
    }

    // ------------------------------------------------------------------------------------------------ orphans

    private void writePidFile(Process p, Path d) {
        Path f = PID_DIR.resolve(p.pid() + "." + ProcessHandle.current().pid());
        Properties props = new Properties();
        props.setProperty("binary", binary.toString());
        props.setProperty("dir", d.toAbsolutePath().toString());
        p.info().startInstant().ifPresent(i -> props.setProperty("serverStart", Long.toString(i.toEpochMilli())));
        ProcessHandle.current().info().startInstant()
                .ifPresent(i -> props.setProperty("ownerStart", Long.toString(i.toEpochMilli())));
        try {
            Files.createDirectories(PID_DIR);
            try (Writer w = Files.newBufferedWriter(f, StandardCharsets.UTF_8)) {
                props.store(w, "redis-server started by dlock-testkit");
            }
            pidFile = f;
        } catch (IOException e) {
            LOG.warn("cannot write {}; a SIGKILLed JVM would leave this redis-server running", f, e);
        }
    }

    /**
     * Kills the redis-server processes listed in the pid directory whose owner JVM is no longer alive, and deletes
     * their files. A listed process is killed only if its command line still names redis-server (or the recorded
     * binary) and, where the OS tells, its start time matches.
     *
     * @return how many processes were killed
     */
    static int reapOrphans() {
        return reapOrphans(PID_DIR);
    }

    static int reapOrphans(Path pidDir) {
        if (!Files.isDirectory(pidDir)) {
            return 0;
        }
        int killed = 0;
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(pidDir)) {
            stream.forEach(files::add);
        } catch (IOException e) {
            LOG.warn("cannot list {}", pidDir, e);
            return 0;
        }
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
            Optional<ProcessHandle> server = ProcessHandle.of(serverPid);
            if (server.isPresent() && server.get().isAlive()
                    && isOurRedis(server.get(), props.getProperty("binary"), props.getProperty("serverStart"))) {
                signalQuietly("CONT", serverPid);
                server.get().destroyForcibly();
                try {
                    server.get().onExit().get(2, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // best effort
                }
                killed++;
            }
            String d = props.getProperty("dir");
            if (d != null) {
                Path serverDir = Paths.get(d).toAbsolutePath().normalize();
                if (serverDir.startsWith(SERVERS_DIR.toAbsolutePath().normalize())
                        && !serverDir.equals(SERVERS_DIR.toAbsolutePath().normalize())) {
                    deleteTreeQuietly(serverDir);
                }
            }
            deleteQuietly(f);
        }
        return killed;
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
        // (Debian: redis-server -> redis-check-rdb), so look at /proc/<pid>/cmdline as well as at what Java reports
        String procCmdline = readQuietly(Paths.get("/proc", Long.toString(handle.pid()), "cmdline"), 0)
                .replace('\0', ' ');
        String commandLine = procCmdline + " " + info.commandLine().orElse("") + " " + info.command().orElse("")
                + " " + String.join(" ", info.arguments().orElse(new String[0]));
        boolean looksLikeRedis = commandLine.contains("redis-server");
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
            return Math.abs(start.get().toEpochMilli() - Long.parseLong(recordedStartMillis)) <= 2_000;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    // ------------------------------------------------------------------------------------------------ signals

    /** Sends {@code SIG<name>} to {@code pid} with the {@code kill} command. */
    static void signal(String name, long pid) {
        List<List<String>> commands = List.of(
                List.of("kill", "-" + name, Long.toString(pid)),
                List.of("/bin/sh", "-c", "kill -" + name + " " + pid));
        IOException notFound = null;
        for (List<String> command : commands) {
            Process k;
            try {
                k = new ProcessBuilder(command).redirectErrorStream(true).start();
            } catch (IOException e) {
                notFound = e;
                continue;
            }
            try (InputStream out = k.getInputStream()) {
                k.getOutputStream().close();
                String output = new String(out.readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!k.waitFor(SIGNAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    k.destroyForcibly();
                    throw new IllegalStateException(command + " did not finish");
                }
                if (k.exitValue() != 0) {
                    throw new IllegalStateException(command + " failed with code " + k.exitValue() + ": " + output);
                }
                return;
            } catch (IOException e) {
                throw new IllegalStateException(command + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while running " + command, e);
            }
        }
        throw new IllegalStateException("cannot send SIG" + name + ": no kill command found", notFound);
    }

    private static void signalQuietly(String name, long pid) {
        try {
            signal(name, pid);
        } catch (RuntimeException e) {
            LOG.debug("SIG{} to {} failed", name, pid, e);
        }
    }

    /** On Linux, waits (≤ 5 s) until /proc says the process is (or is no longer) stopped. Elsewhere returns. */
    private static void awaitStopState(long pid, boolean stopped) {
        Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + SIGNAL_TIMEOUT.toNanos();
        while (true) {
            String content = readQuietly(stat, 0);
            int close = content.lastIndexOf(')');
            if (close < 0 || close + 2 >= content.length()) {
                return; // gone, or unreadable
            }
            char state = content.charAt(close + 2);
            if ((state == 'T' || state == 't') == stopped) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("process " + pid + " is in state " + state + " after SIG"
                        + (stopped ? "STOP" : "CONT"));
            }
            sleepUninterruptibly(1);
        }
    }

    // ------------------------------------------------------------------------------------------------ files

    private static long sizeQuietly(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            return 0;
        }
    }

    private static String readQuietly(Path f, long offset) {
        try {
            byte[] bytes = Files.readAllBytes(f);
            int from = (int) Math.min(bytes.length, Math.max(0, offset));
            return new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    static String tail(String text, int maxLines) {
        if (maxLines <= 0 || text.isEmpty()) {
            return "";
        }
        List<String> lines = Arrays.asList(text.split("\n", -1));
        if (lines.get(lines.size() - 1).isEmpty()) {
            lines = lines.subList(0, lines.size() - 1);
        }
        return String.join("\n", lines.subList(Math.max(0, lines.size() - maxLines), lines.size()));
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            LOG.debug("cannot delete {}", f, e);
        }
    }

    private static void deleteTreeQuietly(Path root) {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = new ArrayList<>(walk.toList());
        } catch (IOException | UncheckedIOException e) {
            paths = Collections.emptyList();
        }
        paths.sort(Comparator.reverseOrder());
        for (Path p : paths) {
            deleteQuietly(p);
        }
    }

    private static void sleepUninterruptibly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A failed start; {@link #addressInUse} when the port was taken. */
    private static final class StartFailedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;
        private final boolean addressInUse;

        StartFailedException(String message, boolean addressInUse) {
            super(message);
            this.addressInUse = addressInUse;
        }
    }

    /**
     * Settings of a {@link RedisServer} to start. Not thread-safe; may be reused to start several servers.
     */
    public static final class Builder {
        private Path binary;
        private int port;
        private final List<String> extraArgs = new ArrayList<>();
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private String sentinelConfig;
        private ClientAuth tlsClientAuth;

        private Builder() {
        }

        /**
         * Runs the server as a Sentinel ({@code redis-server <file> --sentinel}) whose configuration file starts with
         * {@code config}. Used by {@link SentinelTopology}.
         */
        Builder sentinel(String config) {
            this.sentinelConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * @param port the TCP port, or 0 (the default) for a free one chosen at start
         * @throws IllegalArgumentException when outside 0..65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * Adds {@code --key value} to the command line, after the testkit's own options (so it overrides e.g.
         * {@code save} or {@code appendonly}). The value is passed as one argument.
         *
         * @param key a {@code redis.conf} directive, with or without leading {@code --}
         * @throws IllegalArgumentException for a blank key, or one the testkit manages ({@code bind}, {@code port},
         *         {@code dir}, {@code logfile}, {@code daemonize})
         */
        public Builder config(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            String k = key.strip();
            while (k.startsWith("-")) {
                k = k.substring(1);
            }
            if (k.isEmpty()) {
                throw new IllegalArgumentException("blank config key: '" + key + "'");
            }
            if (MANAGED_OPTIONS.contains(k.toLowerCase(java.util.Locale.ROOT))) {
                throw new IllegalArgumentException("'" + k + "' is set by the testkit"
                        + (k.equalsIgnoreCase("port") ? "; use port(int)" : ""));
            }
            extraArgs.add("--" + k);
            extraArgs.add(value);
            return this;
        }

        /**
         * Runs this executable instead of the one {@link RedisBinary#resolve()} picks.
         *
         * @throws IllegalArgumentException when it is not an executable file
         */
        public Builder binary(Path binary) {
            Objects.requireNonNull(binary, "binary");
            if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
                throw new IllegalArgumentException("not an executable file: " + binary);
            }
            this.binary = binary.toAbsolutePath();
            return this;
        }

        /**
         * Serves TLS only: a new CA, server and client certificate are generated in the server's private directory
         * ({@link RedisServer#tlsCertificates()}), and the server runs with {@code --port 0 --tls-port P
         * --tls-cert-file … --tls-key-file … --tls-ca-cert-file … --tls-auth-clients no|optional|yes}. The kit's own
         * commands (readiness, {@code PING}, {@code FLUSHALL}) go over TLS, trusting the CA and presenting the client
         * certificate. Needs a {@code redis-server} built with TLS (Redis 6+, {@code BUILD_TLS=yes}): start fails
         * otherwise.
         */
        public Builder tls(ClientAuth clientAuth) {
            this.tlsClientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /** How long {@link #start()} and {@link RedisServer#restart()} wait for an answer; default 10 s. */
        public Builder startupTimeout(Duration startupTimeout) {
            Objects.requireNonNull(startupTimeout, "startupTimeout");
            if (startupTimeout.isNegative() || startupTimeout.isZero()) {
                throw new IllegalArgumentException("startupTimeout must be positive: " + startupTimeout);
            }
            this.startupTimeout = startupTimeout;
            return this;
        }

        /**
         * Starts the server; blocks until it answers on its port (at most the startup timeout). With port 0, a
         * port taken by another process in the meantime is replaced by another free one (up to 5 tries).
         *
         * @throws IllegalStateException when no binary is found or the server does not come up; the message holds
         *         the tail of the server's log. Nothing is left running then.
         */
        public RedisServer start() {
            Builder settings = new Builder();
            settings.binary = binary != null ? binary : RedisBinary.resolve();
            settings.port = port;
            settings.extraArgs.addAll(extraArgs);
            settings.startupTimeout = startupTimeout;
            settings.sentinelConfig = sentinelConfig;
            settings.tlsClientAuth = tlsClientAuth;
            return new RedisServer(settings).startFirst();
        }
    }
}
