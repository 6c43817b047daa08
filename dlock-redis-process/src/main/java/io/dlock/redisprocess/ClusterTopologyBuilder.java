package io.dlock.redisprocess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.dlock.redisprocess.ClusterNodes.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settings of a {@link ClusterTopology} to start ({@link ClusterTopology#builder()}), and the forming of the cluster
 * (see {@link ClusterTopology}, "Setup"). Not thread-safe; may be reused.
 */
public final class ClusterTopologyBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterTopologyBuilder.class);
    private static final Duration CALL_TIMEOUT = ClusterNodes.CALL_TIMEOUT;
    private static final int START_ATTEMPTS = 10;

    private int masters = 3;
    private int replicasPerMaster = 1;
    private long nodeTimeoutMillis = ClusterTopology.DEFAULT_NODE_TIMEOUT_MILLIS;
    private Path binary;
    private final Map<String, String> config = new LinkedHashMap<>();
    private TlsCertificates tls;

    ClusterTopologyBuilder() {
    }

    /** Masters (1..16); default 3. */
    public ClusterTopologyBuilder masters(int masters) {
        if (masters < 1 || masters > 16) {
            throw new IllegalArgumentException("masters must be 1..16: " + masters);
        }
        this.masters = masters;
        return this;
    }

    /** Replicas of each master (0..4); default 1. Without replicas there is nothing to fail over to. */
    public ClusterTopologyBuilder replicasPerMaster(int replicas) {
        if (replicas < 0 || replicas > 4) {
            throw new IllegalArgumentException("replicasPerMaster must be 0..4: " + replicas);
        }
        this.replicasPerMaster = replicas;
        return this;
    }

    /**
     * {@code cluster-node-timeout} (at least 100 ms); default {@value ClusterTopology#DEFAULT_NODE_TIMEOUT_MILLIS}
     * ms. Shorter makes {@link ClusterTopology#killMasterOf} faster and spurious failovers on a busy machine
     * likelier.
     */
    public ClusterTopologyBuilder nodeTimeout(Duration nodeTimeout) {
        Objects.requireNonNull(nodeTimeout, "nodeTimeout");
        if (nodeTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("nodeTimeout must be at least 100 ms: " + nodeTimeout);
        }
        this.nodeTimeoutMillis = nodeTimeout.toMillis();
        return this;
    }

    /** Adds {@code --key value} to every node's command line (see {@link RedisServerBuilder#config}). */
    public ClusterTopologyBuilder config(String key, String value) {
        RedisServer.builder().config(key, value); // validates
        config.put(key, value);
        return this;
    }

    /**
     * Every node serves TLS only with these certificates (no client certificate asked), the cluster bus and
     * replication included ({@code tls-cluster yes}, {@code tls-replication yes}); {@link ClusterTopology#uri()} is
     * then {@code rediss-cluster://}. See {@link RedisServerBuilder#tls(RedisServer.ClientAuth, TlsCertificates)}.
     */
    public ClusterTopologyBuilder tls(TlsCertificates certificates) {
        this.tls = Objects.requireNonNull(certificates, "certificates");
        return this;
    }

    /** The {@code redis-server} to run; default {@link RedisBinary#resolve()}. */
    public ClusterTopologyBuilder binary(Path binary) {
        this.binary = Objects.requireNonNull(binary, "binary");
        return this;
    }

    /**
     * Starts the nodes, forms the cluster and blocks until it is healthy (at most 30 s).
     *
     * @throws IllegalStateException when a node does not start or the cluster does not form; nothing is left
     *                               running then
     */
    public ClusterTopology start() {
        List<RedisServer> started = new ArrayList<>();
        try {
            int total = masters * (1 + replicasPerMaster);
            for (int i = 0; i < total; i++) {
                started.add(startNode());
            }
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                RedisServer node = started.get(i);
                ids.add((String) node.command(CALL_TIMEOUT, "CLUSTER", "MYID"));
                node.command(CALL_TIMEOUT, "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            }
            for (int m = 0; m < masters; m++) {
                addSlots(started.get(m), m * ClusterTopology.SLOTS / masters,
                        (m + 1) * ClusterTopology.SLOTS / masters - 1);
            }
            RedisServer first = started.get(0);
            for (RedisServer node : started.subList(1, total)) {
                first.command(CALL_TIMEOUT, "CLUSTER", "MEET", RedisServer.HOST, Integer.toString(node.port()));
            }
            Await.untilNoProblem(ClusterTopology.SETTLE_TIMEOUT, () -> {
                for (RedisServer node : started) {
                    Map<String, Node> view = ClusterNodes.view(node);
                    if (view.size() != total || view.values().stream()
                            .anyMatch(n -> n.flags().contains("handshake") || n.flags().contains("noaddr"))) {
                        return node.port() + " knows " + view.size() + " of " + total;
                    }
                }
                return null;
            }, "every node knows every other");
            for (int r = masters; r < total; r++) {
                started.get(r).command(CALL_TIMEOUT, "CLUSTER", "REPLICATE", ids.get((r - masters) % masters));
            }
            ClusterTopology cluster = new ClusterTopology(started, masters);
            cluster.awaitHealthy();
            LOG.debug("started {}", cluster);
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(RedisServer::close);
            throw e;
        }
    }

    private RedisServer startNode() {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
            RedisServerBuilder b = RedisServer.builder()
                    .port(Ports.freeClusterPort())
                    .config("cluster-enabled", "yes")
                    .config("cluster-config-file", "nodes.conf")
                    .config("cluster-node-timeout", Long.toString(nodeTimeoutMillis))
                    .config("repl-diskless-sync", "yes")
                    .config("repl-diskless-sync-delay", "0");
            config.forEach(b::config);
            if (tls != null) {
                b.tls(RedisServer.ClientAuth.NO, tls).config("tls-cluster", "yes");
            }
            if (binary != null) {
                b.binary(binary);
            }
            try {
                return b.start();
            } catch (IllegalStateException e) {
                // the port or its bus port was taken in the meantime: try another pair
                if (!String.valueOf(e.getMessage()).contains("in use")) {
                    throw e;
                }
                last = e;
            }
        }
        throw last;
    }

    private static void addSlots(RedisServer node, int first, int last) {
        List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
        for (int slot = first; slot <= last; slot++) {
            args.add(Integer.toString(slot));
        }
        node.command(CALL_TIMEOUT, args.toArray(new String[0]));
    }
}
