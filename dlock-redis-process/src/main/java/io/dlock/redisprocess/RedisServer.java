package io.dlock.redisprocess;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import javax.net.ssl.SSLSocketFactory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One real {@code redis-server} process listening on {@code 127.0.0.1}, without persistence.
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
 * unless {@link RedisServerBuilder#binary(Path)} gives one.
 *
 * <p><b>No orphans.</b> Every started process is registered in a JVM-wide registry; when the first one starts, a JVM
 * shutdown hook is installed that kills (SIGCONT, then SIGKILL) every server <em>this JVM started</em> and that is
 * still running when the JVM exits, and deletes its files. It never touches other processes. A JVM that is SIGKILLed
 * runs no hook, so each process also gets a marker file {@code ${java.io.tmpdir}/dlock-testkit/pids/<server
 * pid>.<owner JVM pid>}; {@link #reapOrphans()} kills the servers whose owner JVM is gone. Nothing calls it
 * implicitly (loading this class kills nothing): a program or test harness calls it when it wants that clean-up.
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
    private static final int FREE_PORT_ATTEMPTS = 5;
    private static final Duration RESTART_PORT_RETRY = Duration.ofSeconds(5);
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(RedisServer.class);

    private final Path binary;
    private final int requestedPort;
    private final List<String> extraArgs;
    private final Duration startupTimeout;
    /** The initial {@code sentinel.conf} of a server run with {@code --sentinel}, or null for a data server. */
    private final String sentinelConfig;
    /** Whether TLS clients must present a certificate; null for a plain-text server. */
    private final ClientAuth tlsClientAuth;
    /** Makes (or hands out the shared) certificates of a TLS server, given the directory for them. */
    private final Function<Path, TlsCertificates> certificateSource;
    /** The certificates of a TLS server (made with its private directory), and sockets that trust them. */
    private volatile TlsCertificates certificates;
    private volatile SSLSocketFactory tlsSockets;

    private volatile Path dir;
    /** The current (or last) run; null before the first start. */
    private volatile ServerProcess process;
    private volatile int port;

    /** Settings as {@link RedisServerBuilder#start()} completed them (the binary resolved). */
    RedisServer(Path binary, int port, List<String> extraArgs, Duration startupTimeout, String sentinelConfig,
                ClientAuth tlsClientAuth, Function<Path, TlsCertificates> certificateSource) {
        this.binary = binary;
        this.requestedPort = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.startupTimeout = startupTimeout;
        this.sentinelConfig = sentinelConfig;
        this.tlsClientAuth = tlsClientAuth;
        this.certificateSource = certificateSource;
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
    public static RedisServerBuilder builder() {
        return new RedisServerBuilder();
    }

    /**
     * Kills the {@code redis-server} processes that other JVMs started through this class and left running because
     * they died without running their shutdown hook (SIGKILL, a test JVM killed on timeout …), and deletes their
     * files. A process is killed only if its owner JVM is gone and it still is the {@code redis-server} that was
     * recorded (command line and start time), so a reused pid is never killed; servers of live JVMs, this one
     * included, are left alone. Never called implicitly; {@code dlock-testkit}'s JUnit extension calls it once per
     * JVM. Blocks for up to about 2 s per killed process; logs a warning when it killed any; never throws.
     *
     * @return how many processes were killed
     */
    public static int reapOrphans() {
        return OrphanReaper.reap();
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

    /** @return whether the server speaks TLS only ({@link RedisServerBuilder#tls}) */
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
        ServerProcess p = process;
        return p != null && p.isAlive();
    }

    /** @return whether the process is alive and stopped by {@link #pause()} */
    public boolean isPaused() {
        ServerProcess p = process;
        return p != null && p.isPaused();
    }

    /**
     * @return the process id of the current process, or of the last one if it is not running any more
     * @throws IllegalStateException when it never started
     */
    public long pid() {
        ServerProcess p = process;
        if (p == null) {
            throw new IllegalStateException("never started");
        }
        return p.pid();
    }

    /**
     * @return the server's {@code redis_version} as it reports it in {@code INFO} (e.g. {@code 7.0.15}): the Redis
     *         line whose commands it speaks. Valkey reports the line it is compatible with (7.2.4 for Valkey 8);
     *         {@link #product()} names the server itself. Null while stopped, and when {@code INFO} is disabled
     */
    public String version() {
        ServerProcess p = process;
        return p == null ? null : p.version();
    }

    /**
     * @return the server's own name and version from {@code INFO}, such as {@code "Redis 7.0.15"} or
     *         {@code "Valkey 8.1.1"}, for reports and skip reasons; null while stopped, and when {@code INFO} is
     *         disabled
     */
    public String product() {
        ServerProcess p = process;
        return p == null ? null : p.product();
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
        return d == null ? "" : ServerFiles.readQuietly(d.resolve(ServerFiles.LOG_FILE), 0);
    }

    /** @return the last {@code maxLines} lines of {@link #log()} */
    public String logTail(int maxLines) {
        return ServerFiles.tail(log(), maxLines);
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
        Object reply = command(FLUSH_TIMEOUT, "FLUSHALL");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("FLUSHALL on " + uri() + " answered " + reply);
        }
    }

    /**
     * Sends one command on a new connection (over TLS, with the server's certificates, for a TLS server) and blocks
     * for its reply, as {@link Resp#command} does.
     *
     * @param timeout for connecting and for the reply
     * @return the reply: a string (simple, bulk or integer), null, or a list of such for an array
     * @throws IllegalStateException when the server answers with an error or cannot be reached within {@code timeout}
     */
    public Object command(Duration timeout, String... args) {
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
        ServerProcess p = process;
        if (p != null) {
            p.stop();
        }
    }

    /**
     * Kills the server with SIGKILL, as a crash would; blocks until the process has exited. A no-op when not
     * running.
     */
    public synchronized void kill() {
        ServerProcess p = process;
        if (p != null) {
            p.kill();
        }
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
                if (!e.addressInUse() || System.nanoTime() > deadline) {
                    throw e;
                }
                Signals.sleepUninterruptibly(100);
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
        ServerProcess p = process;
        if (p == null || !p.isAlive()) {
            throw new IllegalStateException("redis-server " + uri() + " is not running");
        }
        p.pause();
    }

    /**
     * Lets a {@link #pause() paused} process go on with SIGCONT; blocks until the kernel reports it running (on
     * Linux). A no-op when not paused or not running.
     *
     * @throws IllegalStateException when the signal cannot be sent
     */
    public synchronized void resume() {
        ServerProcess p = process;
        if (p != null) {
            p.resume();
        }
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
            ServerFiles.deleteTreeQuietly(d);
        }
    }

    @Override
    public String toString() {
        ServerProcess p = process;
        return "RedisServer[" + uri() + ", pid=" + (p == null ? "-" : p.pid())
                + (isPaused() ? ", paused" : isRunning() ? ", running" : ", stopped") + "]";
    }

    // ------------------------------------------------------------------------------------------------ starting

    /** First start: a given port once, or free ports until one is not taken by a racing process. */
    synchronized RedisServer startFirst() {
        try {
            if (requestedPort != 0) {
                launch(requestedPort);
                return this;
            }
            StartFailedException last = null;
            for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
                try {
                    launch(Ports.freePort());
                    return this;
                } catch (StartFailedException e) {
                    if (!e.addressInUse()) {
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
        Path d = dir;
        if (d == null || !Files.isDirectory(d)) {
            d = ServerFiles.newServerDir();
            dir = d;
        }
        if (tlsClientAuth != null && (certificates == null || !certificates.dir().startsWith(d))) {
            certificates = certificateSource.apply(d.resolve("tls"));
            tlsSockets = certificates.socketFactory();
        }
        List<String> command = ServerCommandLine.build(binary, sentinelConfig, certificates, tlsClientAuth, onPort, d,
                extraArgs);
        port = onPort;
        process = ServerProcess.start(binary, command, d, onPort, tlsSockets, startupTimeout);
        LOG.debug("started {} pid {} on {}", product(), pid(), uri());
    }
}
