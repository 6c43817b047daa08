package io.dlock.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger LOG = LoggerFactory.getLogger(ClusterTopology.class);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);
    private static final int BUS_PORT_OFFSET = 10_000;
    private static final int START_ATTEMPTS = 10;

    private final List<RedisServer> nodes;
    private final int shards;
    private final String uri;

    private ClusterTopology(List<RedisServer> nodes, int shards) {
        this.nodes = List.copyOf(nodes);
        this.shards = shards;
        this.uri = "redis-cluster://" + nodes.stream().map(n -> RedisServer.HOST + ":" + n.port())
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
    public static Builder builder() {
        return new Builder();
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

    /** @return {@code redis-cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,…} naming every node; never blocks */
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
                RedisServer server = byPort(node.port);
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
        Node m = view.values().stream().filter(n -> n.port == master.port()).findFirst().orElse(null);
        if (m == null) {
            return List.of();
        }
        return view.values().stream().filter(n -> m.id.equals(n.masterId)).map(n -> byPort(n.port))
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
        Await.until(SETTLE_TIMEOUT, "a replica of the killed " + old + " takes over slot " + slot, () -> {
            for (RedisServer candidate : candidates) {
                String problem = ownerProblem(slot, candidate);
                if (problem == null) {
                    return null;
                }
            }
            return "slot " + slot + " not yet owned by one of " + candidates;
        });
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
        Await.until(timeout, "cluster healthy", this::healthProblem);
    }

    private void awaitOwner(int slot, RedisServer owner) {
        Await.until(SETTLE_TIMEOUT, owner + " owns slot " + slot, () -> ownerProblem(slot, owner));
    }

    /** @return null when every running node says {@code owner} is the master owning {@code slot} */
    private String ownerProblem(int slot, RedisServer owner) {
        for (RedisServer node : running()) {
            Map<String, Node> view = view(node);
            Node self = view.values().stream().filter(n -> n.port == owner.port()).findFirst().orElse(null);
            if (self == null || !self.flags.contains("master") || !self.owns(slot)) {
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
            if (!"ok".equals(RedisServer.infoField(info, "cluster_state"))) {
                return node.port() + " says cluster_state " + RedisServer.infoField(info, "cluster_state");
            }
            Map<String, Node> view = view(node);
            TreeMap<Integer, Integer> owners = new TreeMap<>();
            for (Node n : view.values()) {
                if (n.flags.contains("master") && !n.slots.isEmpty()) {
                    RedisServer owner = byPort(n.port);
                    if (owner == null || !owner.isRunning() || n.flags.contains("fail") || n.flags.contains("fail?")) {
                        return node.port() + " sees slots owned by " + n.port + " " + n.flags;
                    }
                    for (int[] range : n.slots) {
                        owners.put(range[0], n.port);
                    }
                }
                RedisServer server = byPort(n.port);
                if (server != null && server.isRunning() && (n.flags.contains("fail") || n.flags.contains("fail?"))) {
                    return node.port() + " flags the running node " + n.port + " " + n.flags;
                }
            }
            int covered = view.values().stream().filter(n -> n.flags.contains("master"))
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
                RedisServer server = byPort(n.port);
                boolean owner = n.flags.contains("master") && !n.slots.isEmpty();
                if (server != null && server.isRunning() && !owner && !n.flags.contains("slave")) {
                    return node.port() + " sees " + n.port + " as a master without slots (not yet a replica)";
                }
            }
            Node self = view.values().stream().filter(n -> n.flags.contains("myself")).findFirst().orElseThrow();
            if (self.flags.contains("slave")) {
                String replication = node.infoOrNull("replication", CALL_TIMEOUT);
                if (replication == null || !"up".equals(RedisServer.infoField(replication, "master_link_status"))) {
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
                return view(node);
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no node of " + this + " answers CLUSTER NODES", last);
    }

    private static boolean isMaster(Map<String, Node> view, RedisServer server) {
        return view.values().stream().anyMatch(n -> n.port == server.port() && n.flags.contains("master"));
    }

    private RedisServer byPort(int port) {
        for (RedisServer node : nodes) {
            if (node.port() == port) {
                return node;
            }
        }
        return null;
    }

    /** {@code CLUSTER NODES} of one node, by node id. */
    private static Map<String, Node> view(RedisServer node) {
        String text = (String) node.command(CALL_TIMEOUT, "CLUSTER", "NODES");
        Map<String, Node> view = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                Node n = Node.parse(line.strip());
                view.put(n.id, n);
            }
        }
        return view;
    }

    /** One line of {@code CLUSTER NODES}: id, port, flags, master id ("-" for a master), slot ranges. */
    private record Node(String id, int port, Set<String> flags, String masterId, List<int[]> slots) {
        static Node parse(String line) {
            String[] parts = line.split(" ");
            String address = parts[1];
            int colon = address.lastIndexOf(':');
            int at = address.indexOf('@');
            int port = Integer.parseInt(address.substring(colon + 1, at > colon ? at : address.length()));
            List<int[]> slots = new ArrayList<>();
            for (int i = 8; i < parts.length; i++) {
                String range = parts[i];
                if (range.startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                int dash = range.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(range.substring(dash + 1));
                slots.add(new int[] {first, last});
            }
            return new Node(parts[0], port, Set.of(parts[2].split(",")), parts[3], slots);
        }

        boolean owns(int slot) {
            return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
        }

        int slotCount() {
            return slots.stream().mapToInt(r -> r[1] - r[0] + 1).sum();
        }
    }

    /** @return a port {@code p} below 55536 such that {@code p} and the bus port {@code p + 10000} are free now */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 55_000);
            if (isFree(port) && isFree(port + BUS_PORT_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free pair of ports p, p + 10000 on " + RedisServer.HOST);
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(RedisServer.HOST), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Settings of a {@link ClusterTopology} to start. Not thread-safe; may be reused. */
    public static final class Builder {
        private int masters = 3;
        private int replicasPerMaster = 1;
        private long nodeTimeoutMillis = DEFAULT_NODE_TIMEOUT_MILLIS;
        private Path binary;
        private final Map<String, String> config = new LinkedHashMap<>();

        private Builder() {
        }

        /** Masters (1..16); default 3. */
        public Builder masters(int masters) {
            if (masters < 1 || masters > 16) {
                throw new IllegalArgumentException("masters must be 1..16: " + masters);
            }
            this.masters = masters;
            return this;
        }

        /** Replicas of each master (0..4); default 1. Without replicas there is nothing to fail over to. */
        public Builder replicasPerMaster(int replicas) {
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
        public Builder nodeTimeout(Duration nodeTimeout) {
            Objects.requireNonNull(nodeTimeout, "nodeTimeout");
            if (nodeTimeout.toMillis() < 100) {
                throw new IllegalArgumentException("nodeTimeout must be at least 100 ms: " + nodeTimeout);
            }
            this.nodeTimeoutMillis = nodeTimeout.toMillis();
            return this;
        }

        /** Adds {@code --key value} to every node's command line (see {@link RedisServer.Builder#config}). */
        public Builder config(String key, String value) {
            RedisServer.builder().config(key, value); // validates
            config.put(key, value);
            return this;
        }

        /** The {@code redis-server} to run; default {@link RedisBinary#resolve()}. */
        public Builder binary(Path binary) {
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
                    addSlots(started.get(m), m * SLOTS / masters, (m + 1) * SLOTS / masters - 1);
                }
                RedisServer first = started.get(0);
                for (RedisServer node : started.subList(1, total)) {
                    first.command(CALL_TIMEOUT, "CLUSTER", "MEET", RedisServer.HOST, Integer.toString(node.port()));
                }
                Await.until(SETTLE_TIMEOUT, "every node knows every other", () -> {
                    for (RedisServer node : started) {
                        Map<String, Node> view = view(node);
                        if (view.size() != total || view.values().stream()
                                .anyMatch(n -> n.flags.contains("handshake") || n.flags.contains("noaddr"))) {
                            return node.port() + " knows " + view.size() + " of " + total;
                        }
                    }
                    return null;
                });
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
                RedisServer.Builder b = RedisServer.builder()
                        .port(freeClusterPort())
                        .config("cluster-enabled", "yes")
                        .config("cluster-config-file", "nodes.conf")
                        .config("cluster-node-timeout", Long.toString(nodeTimeoutMillis))
                        .config("repl-diskless-sync", "yes")
                        .config("repl-diskless-sync-delay", "0");
                config.forEach(b::config);
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
}
