package io.dlock.redisprocess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis Sentinel deployment on loopback for tests: one master, its replicas and the Sentinels that watch them, each
 * a real {@code redis-server} process ({@link RedisServer}, Sentinels run as {@code redis-server <conf> --sentinel}).
 *
 * <pre>{@code
 * try (SentinelTopology redis = SentinelTopology.start()) {   // 1 master, 2 replicas, 3 sentinels
 *     LockClient client = LockClient.connect(redis.uri());   // redis-sentinel://127.0.0.1:p1,…/?sentinelMasterId=…
 *     ...
 *     RedisServer promoted = redis.failover();               // SENTINEL FAILOVER; returns once a replica took over
 *     redis.awaitHealthy();                                  // ... and the old master is its replica
 *     redis.killMaster();                                    // SIGKILL the master; returns once a replica took over
 *     redis.recover();                                       // the killed server comes back as a replica
 * }
 * }</pre>
 *
 * <p><b>Setup.</b> Every data server runs with the options of {@link RedisServer} plus diskless replication without
 * delay ({@code repl-diskless-sync yes}, {@code repl-diskless-sync-delay 0}), so a replica is in sync within
 * milliseconds of connecting. The replicas are attached with {@code REPLICAOF}; then the Sentinels start with
 * {@code sentinel monitor <name> 127.0.0.1 <master port> <majority>}, {@code down-after-milliseconds} (default
 * {@value #DEFAULT_DOWN_AFTER_MILLIS} ms) and {@code failover-timeout} (default
 * {@value #DEFAULT_FAILOVER_TIMEOUT_MILLIS} ms), and {@link #start()} returns once the deployment is
 * {@link #awaitHealthy() healthy}. That takes about two and a half seconds, mostly the Sentinels discovering each
 * other through their hello messages (every 2 s).
 *
 * <p><b>Healthy</b> means: every running Sentinel names the same master, which is running and says it is master, sees
 * every other running Sentinel and lists every running replica as a reachable replica; every running replica says its
 * link to that master is up.
 *
 * <p><b>No orphans.</b> Every process is a {@link RedisServer}, so the JVM shutdown hook and the orphan reaper of
 * {@link RedisServer} cover them. {@link #close()} stops them all.
 *
 * <p><b>Thread-safety.</b> Queries may be called from any thread; the lifecycle methods ({@link #failover()},
 * {@link #killMaster()}, {@link #recover()}, {@link #close()}) are serialised on this instance.
 */
public final class SentinelTopology implements RedisTopology {

    /** The master name the Sentinels monitor unless {@link SentinelTopologyBuilder#masterName} says otherwise. */
    public static final String DEFAULT_MASTER_NAME = "mymaster";
    /** Default {@code down-after-milliseconds}: how long a master may not answer before a Sentinel suspects it. */
    public static final long DEFAULT_DOWN_AFTER_MILLIS = 2000;
    /** Default {@code failover-timeout} of the Sentinels. */
    public static final long DEFAULT_FAILOVER_TIMEOUT_MILLIS = 5000;
    /** How long {@link #start()}, {@link #failover()}, {@link #killMaster()} and {@link #recover()} wait. */
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger LOG = LoggerFactory.getLogger(SentinelTopology.class);
    /** Timeout of each administration command sent to a process. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    private final String masterName;
    private final List<RedisServer> data;
    private final List<RedisServer> sentinels;
    private final String uri;

    SentinelTopology(String masterName, List<RedisServer> data, List<RedisServer> sentinels) {
        this.masterName = masterName;
        this.data = List.copyOf(data);
        this.sentinels = List.copyOf(sentinels);
        this.uri = (sentinels.get(0).isTls() ? "rediss-sentinel://" : "redis-sentinel://") + sentinels.stream().map(s -> RedisServer.HOST + ":" + s.port())
                .collect(Collectors.joining(",")) + "/?sentinelMasterId=" + masterName;
    }

    /**
     * Starts one master, two replicas and three Sentinels with default settings; blocks until healthy (a few seconds,
     * at most 30 s).
     *
     * @throws IllegalStateException when a process does not start or the deployment does not become healthy; nothing
     *                               is left running then
     */
    public static SentinelTopology start() {
        return builder().start();
    }

    /** @return a builder for a deployment with other settings */
    public static SentinelTopologyBuilder builder() {
        return new SentinelTopologyBuilder();
    }

    // ------------------------------------------------------------------------------------------------ queries

    /**
     * @return {@code redis-sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,…/?sentinelMasterId=<name>}, the form that
     *         {@code LockClient.connect} and Lettuce accept; never blocks
     */
    @Override
    public String uri() {
        return uri;
    }

    /** @return the name the Sentinels monitor the master under */
    public String masterName() {
        return masterName;
    }

    /** @return the Sentinel processes, in start order */
    public List<RedisServer> sentinels() {
        return sentinels;
    }

    /** @return every data server (master and replicas), in start order; the first was the master at start */
    public List<RedisServer> servers() {
        return data;
    }

    /**
     * Asks the Sentinels which server is the master now (the first running Sentinel that answers decides).
     *
     * @throws IllegalStateException when no Sentinel answers with a server of this deployment
     */
    public RedisServer master() {
        for (RedisServer sentinel : sentinels) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            try {
                RedisServer m = byPort(masterPortSeenBy(sentinel));
                if (m != null) {
                    return m;
                }
            } catch (RuntimeException e) {
                LOG.debug("sentinel {} did not name the master", sentinel, e);
            }
        }
        throw new IllegalStateException("no Sentinel of " + this + " names a master of this deployment");
    }

    /** @return the data servers other than the current {@link #master()}, running or not */
    public List<RedisServer> replicas() {
        RedisServer m = master();
        return data.stream().filter(s -> s != m).collect(Collectors.toList());
    }

    // ------------------------------------------------------------------------------------------------ failures

    /**
     * Promotes a replica with {@code SENTINEL FAILOVER} and returns once every running Sentinel names it as the master
     * and it says it is master (one to three seconds). Writes the old master had not yet replicated are lost, as in
     * production. As in production, the old master keeps running <em>as a master</em>, accepting the writes of clients
     * still connected to it, until the Sentinels turn it into a replica of the new one and close its client
     * connections, which Sentinel does only some 8 s after the switch; {@link #awaitHealthy()} waits for that.
     *
     * @return the new master
     * @throws IllegalStateException when the Sentinels do not switch within 30 s
     */
    public synchronized RedisServer failover() {
        RedisServer old = master();
        Await.untilNoProblem(SETTLE_TIMEOUT, () -> {
            RedisServer sentinel = anyRunningSentinel();
            try {
                sentinel.command(CALL_TIMEOUT, "SENTINEL", "FAILOVER", masterName);
                return null;
            } catch (IllegalStateException e) {
                // NOGOODSLAVE right after start or another failover: the Sentinel has not refreshed its replicas yet
                return e.getMessage();
            }
        }, "SENTINEL FAILOVER " + masterName);
        return awaitNewMaster(old);
    }

    /** Waits until every running Sentinel names the same running master other than {@code old}. */
    private RedisServer awaitNewMaster(RedisServer old) {
        Await.untilNoProblem(SETTLE_TIMEOUT, () -> {
            List<String> seen = new ArrayList<>();
            Integer agreed = null;
            for (RedisServer sentinel : runningSentinels()) {
                int port = masterPortSeenBy(sentinel);
                seen.add(Integer.toString(port));
                if (agreed != null && agreed != port) {
                    return "Sentinels disagree: " + seen;
                }
                agreed = port;
            }
            RedisServer now = agreed == null ? null : byPort(agreed);
            return now != null && now != old && now.isRunning() && "master".equals(role(now)) ? null
                    : "Sentinels name " + seen;
        }, "a replica takes over from " + old);
        return master();
    }

    /**
     * Kills the master with SIGKILL, as a crash would, and waits until the Sentinels have promoted a replica (about
     * {@code down-after-milliseconds} plus a second or two). The killed server stays down until {@link #recover()}.
     *
     * @return the new master
     * @throws IllegalStateException when no replica takes over within 30 s
     */
    public synchronized RedisServer killMaster() {
        RedisServer old = master();
        old.kill();
        return awaitNewMaster(old);
    }

    /**
     * Starts every stopped process again: a data server as a replica of the current master (with an empty data set,
     * filled by replication), a Sentinel with the configuration it last wrote. Then waits until healthy.
     *
     * @throws IllegalStateException when a process does not start or the deployment does not become healthy in 30 s
     */
    public synchronized void recover() {
        RedisServer m = master();
        for (RedisServer server : data) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isRunning()) {
                server.restart();
                replicate(server, m);
            }
        }
        for (RedisServer sentinel : sentinels) {
            if (sentinel.isPaused()) {
                sentinel.resume();
            }
            if (!sentinel.isRunning()) {
                sentinel.restart();
            }
        }
        awaitHealthy();
    }

    /**
     * Blocks until the deployment is healthy (see the class comment) or 30 s passed.
     *
     * @throws IllegalStateException naming what is still wrong when the time is up
     */
    public void awaitHealthy() {
        awaitHealthy(SETTLE_TIMEOUT);
    }

    /**
     * Blocks until the deployment is healthy (see the class comment) or {@code timeout} passed.
     *
     * @throws IllegalStateException naming what is still wrong when the time is up
     */
    public void awaitHealthy(Duration timeout) {
        Await.untilNoProblem(timeout, this::healthProblem, "Sentinel deployment " + masterName + " healthy");
    }

    /** @return null when healthy, else the first thing found wrong */
    private String healthProblem() {
        List<RedisServer> liveSentinels = runningSentinels();
        if (liveSentinels.isEmpty()) {
            return "no Sentinel is running";
        }
        Integer masterPort = null;
        for (RedisServer sentinel : liveSentinels) {
            int port = masterPortSeenBy(sentinel);
            if (masterPort != null && masterPort != port) {
                return "Sentinels disagree about the master (" + masterPort + " vs " + port + ")";
            }
            masterPort = port;
        }
        RedisServer m = byPort(masterPort);
        if (m == null || !m.isRunning()) {
            return "the Sentinels' master " + masterPort + " is not a running server of this deployment";
        }
        if (!"master".equals(role(m))) {
            return m + " is not master yet";
        }
        List<RedisServer> liveReplicas = data.stream().filter(s -> s != m && s.isRunning()).toList();
        for (RedisServer replica : liveReplicas) {
            String info = replica.infoOrNull("replication", CALL_TIMEOUT);
            if (info == null) {
                return replica + " does not answer";
            }
            if (!"slave".equals(Resp.infoField(info, "role"))
                    || !Integer.toString(m.port()).equals(Resp.infoField(info, "master_port"))
                    || !"up".equals(Resp.infoField(info, "master_link_status"))) {
                return replica + " is not an up-to-date replica of " + m.port();
            }
        }
        for (RedisServer sentinel : liveSentinels) {
            Map<String, String> master = fields(sentinel.command(CALL_TIMEOUT, "SENTINEL", "MASTER", masterName));
            if (!"master".equals(master.get("flags"))) {
                return "Sentinel " + sentinel.port() + " flags the master " + master.get("flags");
            }
            if (!Integer.toString(liveSentinels.size() - 1).equals(master.get("num-other-sentinels"))) {
                return "Sentinel " + sentinel.port() + " knows " + master.get("num-other-sentinels")
                        + " other Sentinels";
            }
            List<Map<String, String>> known = new ArrayList<>();
            for (Object entry : (List<?>) sentinel.command(CALL_TIMEOUT, "SENTINEL", "REPLICAS", masterName)) {
                known.add(fields(entry));
            }
            for (RedisServer replica : liveReplicas) {
                // (the replica's own INFO above is the truth about its link; a Sentinel refreshes its copy of a
                // replica's INFO only every 10 s)
                boolean seen = known.stream().anyMatch(r -> Integer.toString(replica.port()).equals(r.get("port"))
                        && "slave".equals(r.get("flags")));
                if (!seen) {
                    return "Sentinel " + sentinel.port() + " does not list " + replica.port()
                            + " as a reachable replica: " + known;
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    /** Stops every process (Sentinels first) and deletes their files. Idempotent; never throws. */
    @Override
    public synchronized void close() {
        for (RedisServer sentinel : sentinels) {
            sentinel.close();
        }
        for (RedisServer server : data) {
            server.close();
        }
    }

    @Override
    public String toString() {
        return "SentinelTopology[" + uri + ", servers " + data.stream().map(s -> Integer.toString(s.port()))
                .collect(Collectors.joining(",")) + "]";
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private List<RedisServer> runningSentinels() {
        return sentinels.stream().filter(s -> s.isRunning() && !s.isPaused()).toList();
    }

    private RedisServer anyRunningSentinel() {
        return runningSentinels().stream().findFirst()
                .orElseThrow(() -> new IllegalStateException("no Sentinel of " + this + " is running"));
    }

    private int masterPortSeenBy(RedisServer sentinel) {
        Object reply = sentinel.command(CALL_TIMEOUT, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
        if (!(reply instanceof List<?> address) || address.size() != 2) {
            throw new IllegalStateException("Sentinel " + sentinel.port() + " knows no master " + masterName);
        }
        return Integer.parseInt((String) address.get(1));
    }

    private RedisServer byPort(Integer port) {
        if (port == null) {
            return null;
        }
        for (RedisServer server : data) {
            if (server.port() == port) {
                return server;
            }
        }
        return null;
    }

    private static String role(RedisServer server) {
        String info = server.infoOrNull("replication", CALL_TIMEOUT);
        return info == null ? null : Resp.infoField(info, "role");
    }

    static void replicate(RedisServer replica, RedisServer master) {
        replica.command(CALL_TIMEOUT, "REPLICAOF", RedisServer.HOST, Integer.toString(master.port()));
    }

    /** A flat {@code [key, value, key, value, …]} reply as a map. */
    private static Map<String, String> fields(Object reply) {
        Map<String, String> map = new LinkedHashMap<>();
        List<?> list = (List<?>) reply;
        for (int i = 0; i + 1 < list.size(); i += 2) {
            map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return map;
    }
}
