package io.dlock.testkit;

import java.lang.reflect.Executable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.redisprocess.SentinelTopology;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * JUnit 5 extension giving each test class one real Redis deployment: a {@link RedisServer}, or the
 * {@link SentinelTopology} or {@link ClusterTopology} that the class asks for with {@link Topology}.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * class MyLockIT {
 *     @Test
 *     void locks(RedisServer redis, @ClientSettings(watchdogTimeoutMillis = 300) LockClient client) {
 *         DistributedLock lock = client.getLock("a");
 *         ...
 *         redis.pause(); // simulate a hung server
 *     }
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>One server per test class</b> (a {@code @Nested} class shares its enclosing class's server once that one
 *       is started), started on first need and {@linkplain RedisServer#close() closed} after the last test of the
 *       class, whether tests failed or not (it is held in the class's {@link ExtensionContext.Store} as an
 *       {@link AutoCloseable}; this needs JUnit Jupiter 5.13 or later, and the JVM shutdown hook of
 *       {@link RedisServer} is the backstop).</li>
 *   <li><b>Orphans of dead JVMs</b>: before it starts its first deployment in a JVM, the extension calls
 *       {@link RedisServer#reapOrphans()} once, which kills the {@code redis-server}s that earlier JVMs started and
 *       left behind when they were SIGKILLed (a test run killed on timeout, say). It never touches the servers of
 *       running JVMs, so test JVMs in parallel are safe. Code that starts servers without the extension calls it
 *       itself if it wants that clean-up.</li>
 *   <li><b>Before each test</b> the server is restarted if a test stopped or killed it, resumed if a test paused it,
 *       and emptied with {@code FLUSHALL}: every test starts with an empty database.</li>
 *   <li><b>Parameters</b>: a {@link RedisServer} parameter gets the class's server; every {@link LockClient}
 *       parameter gets a new client connected to it, configured by {@link ClientSettings} and closed after the
 *       method (or, for a {@code @BeforeAll} method, after the class), even when the test fails.</li>
 *   <li><b>On failure</b> the last 50 lines of the server's log are printed to standard error.</li>
 *   <li><b>Other topologies</b> ({@code @Topology(SENTINEL)}, {@code @Topology(CLUSTER)}): one deployment per class
 *       as above. Before each test, stopped or paused processes are brought back ({@code recover()}) and every master
 *       is emptied with {@code FLUSHALL}. A {@link RedisTopology} parameter gets the deployment whatever its kind, a
 *       {@link SentinelTopology} or {@link ClusterTopology} parameter gets it when it is of that kind, and
 *       {@link LockClient}s connect to its {@link RedisTopology#uri() uri}. A {@link RedisServer} parameter is only
 *       resolved for a standalone class. On failure the log tails (20 lines) of every process are printed.</li>
 * </ul>
 *
 * <p>Tests of one class share the server and each starts with {@code FLUSHALL}, so do not run the tests of one class
 * concurrently. Different classes may run in parallel: each has its own server. The extension itself is stateless
 * and thread-safe.
 */
public class RedisExtension implements BeforeEachCallback, ParameterResolver, TestWatcher {

    /** How many lines of the server's log are printed when a test fails. */
    public static final int FAILURE_LOG_LINES = 50;
    /** How many lines of each process's log are printed when a test on a Sentinel or Cluster deployment fails. */
    static final int TOPOLOGY_FAILURE_LOG_LINES = 20;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String SERVER_KEY = "redis-server";
    private static final AtomicLong CLIENT_KEYS = new AtomicLong();
    /** Whether orphans were reaped yet: once per JVM (strictly, per class loader of this class; one in practice). */
    private static final AtomicBoolean ORPHANS_REAPED = new AtomicBoolean();

    /** Created by JUnit through {@code @ExtendWith(RedisExtension.class)}. */
    public RedisExtension() {
    }

    /**
     * Starts the class's deployment if needed (blocking up to its startup timeout), restarts or resumes what a test
     * left stopped or paused, and empties it with {@code FLUSHALL}.
     *
     * @throws IllegalStateException when the deployment cannot be started or does not answer
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        RedisTopology topology = topology(context);
        if (topology instanceof SentinelTopology sentinel) {
            if (!allRunning(sentinel.servers()) || !allRunning(sentinel.sentinels())) {
                ServerCrashes.recoverOrSkip(sentinel::recover);
            }
            sentinel.master().flushAll();
            return;
        }
        if (topology instanceof ClusterTopology cluster) {
            if (!allRunning(cluster.nodes())) {
                ServerCrashes.recoverOrSkip(cluster::recover);
            }
            cluster.flushAll();
            return;
        }
        RedisServer server = (RedisServer) topology;
        if (!server.isRunning()) {
            server.restart();
        } else if (server.isPaused()) {
            server.resume();
        }
        server.flushAll();
    }

    private static boolean allRunning(List<RedisServer> servers) {
        return servers.stream().allMatch(s -> s.isRunning() && !s.isPaused());
    }

    /**
     * @return whether the parameter is a {@link LockClient}, a {@link RedisTopology}, or the class's kind of
     *         deployment ({@link RedisServer}, {@link SentinelTopology}, {@link ClusterTopology})
     */
    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == LockClient.class || type == RedisTopology.class
                || type == SentinelTopology.class || type == ClusterTopology.class;
    }

    /**
     * Returns the class's deployment (starting it if needed), or a new {@link LockClient} connected to it, which
     * blocks until connected.
     *
     * @throws ParameterResolutionException when a {@link ClientSettings} value is negative, or the parameter asks for
     *                                      another kind of deployment than the class's {@link Topology}
     */
    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (type != LockClient.class && type != RedisTopology.class
                && kindOf(extensionContext) != kindOfType(type)) {
            throw new ParameterResolutionException(parameterContext.getParameter() + ": this class runs on "
                    + kindOf(extensionContext) + " (see @Topology); ask for a RedisTopology or a "
                    + typeOfKind(kindOf(extensionContext)).getSimpleName());
        }
        RedisTopology topology = topology(extensionContext);
        if (type != LockClient.class) {
            return topology;
        }
        LockClientConfig config;
        try {
            config = clientConfig(topology.uri(), settingsNearestFirst(parameterContext, extensionContext));
        } catch (IllegalArgumentException e) {
            throw new ParameterResolutionException("bad @ClientSettings for " + parameterContext.getParameter()
                    + ": " + e.getMessage(), e);
        }
        LockClient client = LockClient.create(config);
        extensionContext.getStore(NAMESPACE).put("lock-client-" + CLIENT_KEYS.incrementAndGet(), client);
        return client;
    }

    /** Prints the last {@value #FAILURE_LOG_LINES} lines of the server's log to standard error. */
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        RedisTopology topology = classContext(context).getStore(NAMESPACE)
                .get(SERVER_KEY + kindOf(context), RedisTopology.class);
        if (topology instanceof RedisServer server) {
            printTail(context, server, FAILURE_LOG_LINES);
        } else if (topology instanceof SentinelTopology sentinel) {
            sentinel.servers().forEach(s -> printTail(context, s, TOPOLOGY_FAILURE_LOG_LINES));
            sentinel.sentinels().forEach(s -> printTail(context, s, TOPOLOGY_FAILURE_LOG_LINES));
        } else if (topology instanceof ClusterTopology cluster) {
            cluster.nodes().forEach(s -> printTail(context, s, TOPOLOGY_FAILURE_LOG_LINES));
        }
    }

    private static void printTail(ExtensionContext context, RedisServer server, int lines) {
        String tail = server.logTail(lines);
        System.err.println("----- " + context.getDisplayName() + " failed; " + server + ", last "
                + lines + " lines of its log: -----\n" + tail + "\n----- end of redis-server log -----");
    }

    /** The class's deployment, started on first need and closed with the class's store. */
    private static RedisTopology topology(ExtensionContext context) {
        Topology.Kind kind = kindOf(context);
        // keyed by kind too: a @Nested class with a @Topology of its own does not get its enclosing class's one
        return classContext(context).getStore(NAMESPACE).getOrComputeIfAbsent(SERVER_KEY + kind, key -> {
            reapOrphansOnce();
            return switch (kind) {
                case STANDALONE -> RedisServer.start();
                case SENTINEL -> SentinelTopology.start();
                case CLUSTER -> ClusterTopology.start();
            };
        }, RedisTopology.class);
    }

    /** {@link RedisServer#reapOrphans()}, the first time this JVM starts a deployment through the extension. */
    private static void reapOrphansOnce() {
        if (ORPHANS_REAPED.compareAndSet(false, true)) {
            RedisServer.reapOrphans();
        }
    }

    /** The {@link Topology} of the test class, or of the nearest enclosing class that has one; else standalone. */
    static Topology.Kind kindOf(ExtensionContext context) {
        for (Class<?> c = context.getTestClass().orElse(null); c != null; c = c.getEnclosingClass()) {
            java.util.Optional<Topology> topology = AnnotationSupport.findAnnotation(c, Topology.class);
            if (topology.isPresent()) {
                return topology.get().value();
            }
        }
        return Topology.Kind.STANDALONE;
    }

    private static Topology.Kind kindOfType(Class<?> type) {
        return type == SentinelTopology.class ? Topology.Kind.SENTINEL
                : type == ClusterTopology.class ? Topology.Kind.CLUSTER : Topology.Kind.STANDALONE;
    }

    private static Class<?> typeOfKind(Topology.Kind kind) {
        return switch (kind) {
            case STANDALONE -> RedisServer.class;
            case SENTINEL -> SentinelTopology.class;
            case CLUSTER -> ClusterTopology.class;
        };
    }

    /** The nearest enclosing context that is not a method's (or a method template's). */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
            c = c.getParent().get();
        }
        return c;
    }

    /** The {@link ClientSettings} in effect for a parameter: parameter, executable, class, enclosing classes. */
    static List<ClientSettings> settingsNearestFirst(ParameterContext parameterContext, ExtensionContext context) {
        List<ClientSettings> found = new ArrayList<>();
        parameterContext.findAnnotation(ClientSettings.class).ifPresent(found::add);
        Executable executable = parameterContext.getDeclaringExecutable();
        AnnotationSupport.findAnnotation(executable, ClientSettings.class).ifPresent(found::add);
        for (Class<?> c = context.getTestClass().orElse(executable.getDeclaringClass()); c != null;
                c = c.getEnclosingClass()) {
            AnnotationSupport.findAnnotation(c, ClientSettings.class).ifPresent(found::add);
        }
        return found;
    }

    /**
     * The client settings for a server: each value from the first of {@code nearestFirst} that sets it (non-zero).
     *
     * @throws IllegalArgumentException when a value is negative or rejected by {@link LockClientConfig.Builder}
     */
    static LockClientConfig clientConfig(String redisUri, List<ClientSettings> nearestFirst) {
        LockClientConfig.Builder builder = LockClientConfig.builder().redisUri(redisUri);
        long watchdog = first(nearestFirst, ClientSettings::watchdogTimeoutMillis, "watchdogTimeoutMillis");
        if (watchdog > 0) {
            builder.watchdogTimeout(Duration.ofMillis(watchdog));
        }
        long command = first(nearestFirst, ClientSettings::commandTimeoutMillis, "commandTimeoutMillis");
        if (command > 0) {
            builder.commandTimeout(Duration.ofMillis(command));
        }
        long fair = first(nearestFirst, ClientSettings::fairLockWaitTimeoutMillis, "fairLockWaitTimeoutMillis");
        if (fair > 0) {
            builder.fairLockWaitTimeout(Duration.ofMillis(fair));
        }
        return builder.build();
    }

    private static long first(List<ClientSettings> nearestFirst, ToLongFunction<ClientSettings> value, String name) {
        for (ClientSettings settings : nearestFirst) {
            long v = value.applyAsLong(settings);
            if (v < 0) {
                throw new IllegalArgumentException(name + " is negative: " + v);
            }
            if (v > 0) {
                return v;
            }
        }
        return 0;
    }
}
