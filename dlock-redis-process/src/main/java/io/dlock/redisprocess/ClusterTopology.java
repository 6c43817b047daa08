package io.dlock.redisprocess;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.dlock.redisprocess.ClusterNodes.Node;

/**
 * A Redis Cluster on loopback for tests: masters that share the 16384 hash slots, each with its replicas, every node
 * a real {@code redis-server} process ({@link RedisServer}) with {@code cluster-enabled yes}.
 *
 * <pre>{@code
 * try (ClusterTopology cluster = ClusterTopology.start()) {     // 3 masters, one replica each
 *     LockClient client = LockClient.connect(cluster.uri());    // redis-cluster://127.0.0.1:p1,127.0.0.1:p2,…
 *     int slot = ClusterTopology.slot("orders:42");
 *     RedisServer promoted = cluster.failover(slot);            // CLUSTER FAILOVER on the slot's replica
 *     cluster.killMasterOf(slot);                               // SIGKILL; returns once its replica took over
 *     cluster.recover();                                        // the killed node rejoins as a replica
 * }
 * }</pre>
 *
 * <p><b>Setup</b>, with plain commands so that any {@code redis-server} works (no {@code redis-cli} needed, Redis
 * 6.2 or later): every node starts with the options of {@link RedisServer} plus {@code cluster-enabled yes},
 * {@code cluster-config-file nodes.conf} (in the node's private directory), {@code cluster-node-timeout}
 * (default {@value #DEFAULT_NODE_TIMEOUT_MILLIS} ms) and diskless replication without delay. Each node gets its own
 * config epoch ({@code CLUSTER SET-CONFIG-EPOCH}); master {@code i} of {@code n} takes slots
 * {@code [i·16384/n, (i+1)·16384/n)} ({@code CLUSTER ADDSLOTS}); the first node {@code CLUSTER MEET}s the others;
 * once everybody knows everybody, each replica runs {@code CLUSTER REPLICATE} with its master's id. {@link #start()}
 * returns once the cluster is {@link #awaitHealthy() healthy}: about two seconds. Ports are chosen so that the
 * cluster bus port (port + 10000) is free as well.
 *
 * <p><b>Healthy</b> means: every running node says {@code cluster_state:ok}; they all agree which node owns each
 * slot; every slot is owned by one of as many running masters as the cluster started with, which nobody flags as
 * failing; every other running node is a replica whose link to its master is up.
 *
 * <p><b>No orphans.</b> Every node is a {@link RedisServer}, so the JVM shutdown hook and the orphan reaper of
 * {@link RedisServer} cover them. {@link #close()} stops them all.
 *
 * <p><b>Thread-safety.</b> Queries may be called from any thread; lifecycle methods are serialised on this instance.
 */
public final class ClusterTopology implements RedisTopology {

    /** Hash slots of a Redis Cluster. */
    public static final int SLOTS = 16384;
    /** Default {@code cluster-node-timeout}: how long a node may not answer before the others suspect it. */
    public static final long DEFAULT_NODE_TIMEOUT_MILLIS = 2000;
    /** How long {@link #start()}, failovers and {@link #recover()} wait for the cluster to settle. */
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration CALL_TIMEOUT = ClusterNodes.CALL_TIMEOUT;

    private final List<RedisServer> nodes;
    private final int shards;
    private final String uri;

    ClusterTopology(List<RedisServer> nodes, int shards) {
        this.nodes = List.copyOf(nodes);
        this.shards = shards;
        this.uri = (nodes.get(0).isTls() ? "rediss-cluster://" : "redis-cluster://") + nodes.stream().map(n -> RedisServer.HOST + ":" + n.port())
                .collect(Collectors.joining(","));
    }

    /**
     * Starts three masters with one replica each; blocks until the cluster is healthy (about two seconds, at most
     * 30 s).
     *
     * @throws IllegalStateException when a node does not start or the cluster does not form; nothing is left running
     */
    public static ClusterTopology start() {
        return builder().start();
    }

    /** @return a builder for a cluster with other settings */
    public static ClusterTopologyBuilder builder() {
        return new ClusterTopologyBuilder();
    }

    /**
     * The hash slot of a key, as Redis computes it: CRC16 (XMODEM) of the key, or of its hash tag (the text between
     * the first {@code {} and the next {@code }}, when not empty), modulo 16384.
     */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return (crc & 0xffff) % SLOTS;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    // ------------------------------------------------------------------------------------------------ queries

    /** @return {@code redis-cluster://127.0.0.1:<p1>,…} ({@code rediss-cluster://} with TLS) naming every node */
    @Override
    public String uri() {
        return uri;
    }

    /** @return every node, in start order (the masters first, as at start) */
    public List<RedisServer> nodes() {
        return nodes;
    }

    /** @return the running nodes that are masters now (asks the nodes), in start order */
    public List<RedisServer> masters() {
        Map<String, Node> view = anyView();
        return nodes.stream().filter(n -> n.isRunning() && isMaster(view, n)).toList();
    }

    /**
     * @return the master that owns {@code slot} now, as the running nodes see it
     * @throws IllegalStateException when no running node answers or none owns the slot
     */
    public RedisServer masterOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be 0.." + (SLOTS - 1) + ": " + slot);
        }
        for (Node node : anyView().values()) {
            if (node.owns(slot)) {
                RedisServer server = byPort(node.port());
                if (server != null) {
                    return server;
                }
            }
        }
        throw new IllegalStateException("no node of " + this + " owns slot " + slot);
    }

    /** @return the master that owns the slot of {@code key} now */
    public RedisServer masterFor(String key) {
        return masterOf(slot(key));
    }

    /** @return the running replicas of {@code master}, as the running nodes see them */
    public List<RedisServer> replicasOf(RedisServer master) {
        Map<String, Node> view = anyView();
        Node m = view.values().stream().filter(n -> n.port() == master.port()).findFirst().orElse(null);
        if (m == null) {
            return List.of();
        }
        return view.values().stream().filter(n -> m.id().equals(n.masterId())).map(n -> byPort(n.port()))
                .filter(s -> s != null && s.isRunning()).toList();
    }

    // ------------------------------------------------------------------------------------------------ failures

    /**
     * Runs {@code CLUSTER FAILOVER} on a replica of the master owning {@code slot}: a coordinated switch in which the
     * master stops accepting writes until the replica has caught up, so no acknowledged write is lost; the old master
     * becomes a replica of the new one. Blocks until the cluster is healthy again (about a second).
     *
     * @return the new master of {@code slot}
     * @throws IllegalStateException when the master has no running replica or the switch does not complete in 30 s
     */
    public synchronized RedisServer failover(int slot) {
        RedisServer old = masterOf(slot);
        RedisServer replica = replicasOf(old).stream().findFirst()
                .orElseThrow(() -> new IllegalStateException(old + " has no running replica to fail over to"));
        replica.command(CALL_TIMEOUT, "CLUSTER", "FAILOVER");
        awaitOwner(slot, replica);
        awaitHealthy();
        return replica;
    }

    /**
     * Kills the master owning {@code slot} with SIGKILL, as a crash would, and waits until one of its replicas has
     * been elected in its place (about {@code cluster-node-timeout} plus a second) and every running node agrees.
     * Writes the master had not yet replicated are lost. The killed node stays down until {@link #recover()}.
     *
     * @return the new master of {@code slot}
     * @throws IllegalStateException when no replica takes over within 30 s
     */
    public synchronized RedisServer killMasterOf(int slot) {
        RedisServer old = masterOf(slot);
        List<RedisServer> candidates = replicasOf(old);
        old.kill();
        Await.untilNoProblem(SETTLE_TIMEOUT, () -> {
            for (RedisServer candidate : candidates) {
                String problem = ownerProblem(slot, candidate);
                if (problem == null) {
                    return null;
                }
            }
            return "slot " + slot + " not yet owned by one of " + candidates;
        }, "a replica of the killed " + old + " takes over slot " + slot);
        return masterOf(slot);
    }

    /**
     * Starts every stopped node again (same port and cluster identity, empty data set), resumes paused ones, and waits
     * until the cluster is healthy. A master that was replaced while it was down rejoins as a replica of its successor.
     *
     * @throws IllegalStateException when a node does not start or the cluster does not become healthy in 30 s
     */
    public synchronized void recover() {
        for (RedisServer node : nodes) {
            if (node.isPaused()) {
                node.resume();
            }
            if (!node.isRunning()) {
                node.restart();
            }
        }
        awaitHealthy();
    }

    /**
     * Stops every node (gracefully, see {@link RedisServer#stop()}): the whole cluster is unreachable until
     * {@link #recover()}, which brings it back with the same slots and roles but no data.
     */
    public synchronized void stop() {
        for (RedisServer node : nodes) {
            node.stop();
        }
    }

    /**
     * Empties every master with {@code FLUSHALL} (the replicas follow).
     *
     * @throws IllegalStateException when a master does not answer {@code OK}
     */
    public void flushAll() {
        for (RedisServer master : masters()) {
            master.flushAll();
        }
    }

    /** Blocks until the cluster is healthy (see the class comment) or 30 s passed. */
    public void awaitHealthy() {
        awaitHealthy(SETTLE_TIMEOUT);
    }

    /**
     * Blocks until the cluster is healthy (see the class comment) or {@code timeout} passed.
     *
     * @throws IllegalStateException naming what is still wrong when the time is up
     */
    public void awaitHealthy(Duration timeout) {
        Await.untilNoProblem(timeout, this::healthProblem, "cluster healthy");
    }

    private void awaitOwner(int slot, RedisServer owner) {
        Await.untilNoProblem(SETTLE_TIMEOUT, () -> ownerProblem(slot, owner), owner + " owns slot " + slot);
    }

    /** @return null when every running node says {@code owner} is the master owning {@code slot} */
    private String ownerProblem(int slot, RedisServer owner) {
        for (RedisServer node : running()) {
            Map<String, Node> view = ClusterNodes.view(node);
            Node self = view.values().stream().filter(n -> n.port() == owner.port()).findFirst().orElse(null);
            if (self == null || !self.flags().contains("master") || !self.owns(slot)) {
                return node.port() + " does not see " + owner.port() + " owning slot " + slot;
            }
        }
        return null;
    }

    /** @return null when healthy, else the first thing found wrong */
    private String healthProblem() {
        List<RedisServer> live = running();
        if (live.isEmpty()) {
            return "no node is running";
        }
        String agreed = null;
        for (RedisServer node : live) {
            String info = (String) node.command(CALL_TIMEOUT, "CLUSTER", "INFO");
            if (!"ok".equals(Resp.infoField(info, "cluster_state"))) {
                return node.port() + " says cluster_state " + Resp.infoField(info, "cluster_state");
            }
            Map<String, Node> view = ClusterNodes.view(node);
            TreeMap<Integer, Integer> owners = new TreeMap<>();
            for (Node n : view.values()) {
                if (n.flags().contains("master") && !n.slots().isEmpty()) {
                    RedisServer owner = byPort(n.port());
                    if (owner == null || !owner.isRunning() || n.failing()) {
                        return node.port() + " sees slots owned by " + n.port() + " " + n.flags();
                    }
                    for (int[] range : n.slots()) {
                        owners.put(range[0], n.port());
                    }
                }
                RedisServer server = byPort(n.port());
                if (server != null && server.isRunning() && (n.failing())) {
                    return node.port() + " flags the running node " + n.port() + " " + n.flags();
                }
            }
            int covered = view.values().stream().filter(n -> n.flags().contains("master"))
                    .mapToInt(Node::slotCount).sum();
            if (covered != SLOTS) {
                return node.port() + " sees " + covered + " slots covered";
            }
            String layout = owners.toString();
            if (agreed != null && !agreed.equals(layout)) {
                return "nodes disagree about slot owners: " + agreed + " vs " + layout;
            }
            agreed = layout;
            if (owners.values().stream().distinct().count() != shards) {
                return node.port() + " sees slots owned by " + owners.values().stream().distinct().count()
                        + " masters, not " + shards;
            }
            for (Node n : view.values()) {
                RedisServer server = byPort(n.port());
                boolean owner = n.flags().contains("master") && !n.slots().isEmpty();
                if (server != null && server.isRunning() && !owner && !n.flags().contains("slave")) {
                    return node.port() + " sees " + n.port() + " as a master without slots (not yet a replica)";
                }
            }
            Node self = view.values().stream().filter(n -> n.flags().contains("myself")).findFirst().orElseThrow();
            if (self.flags().contains("slave")) {
                String replication = node.infoOrNull("replication", CALL_TIMEOUT);
                if (replication == null || !"up".equals(Resp.infoField(replication, "master_link_status"))) {
                    return "replica " + node.port() + " is not in sync with its master";
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------------ lifecycle

    /** Stops every node and deletes their files. Idempotent; never throws. */
    @Override
    public synchronized void close() {
        for (RedisServer node : nodes) {
            node.close();
        }
    }

    @Override
    public String toString() {
        return "ClusterTopology[" + uri + "]";
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private List<RedisServer> running() {
        return nodes.stream().filter(n -> n.isRunning() && !n.isPaused()).toList();
    }

    private Map<String, Node> anyView() {
        IllegalStateException last = null;
        for (RedisServer node : running()) {
            try {
                return ClusterNodes.view(node);
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no node of " + this + " answers CLUSTER NODES", last);
    }

    private static boolean isMaster(Map<String, Node> view, RedisServer server) {
        return view.values().stream().anyMatch(n -> n.port() == server.port() && n.flags().contains("master"));
    }

    private RedisServer byPort(int port) {
        for (RedisServer node : nodes) {
            if (node.port() == port) {
                return node;
            }
        }
        return null;
    }
}
