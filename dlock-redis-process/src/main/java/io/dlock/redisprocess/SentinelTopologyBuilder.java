package io.dlock.redisprocess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settings of a {@link SentinelTopology} to start ({@link SentinelTopology#builder()}), and the start itself (see
 * {@link SentinelTopology}, "Setup"). Not thread-safe; may be reused.
 */
public final class SentinelTopologyBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(SentinelTopologyBuilder.class);
    private static final Duration CALL_TIMEOUT = SentinelTopology.CALL_TIMEOUT;

    private int replicas = 2;
    private int sentinels = 3;
    private String masterName = SentinelTopology.DEFAULT_MASTER_NAME;
    private long downAfterMillis = SentinelTopology.DEFAULT_DOWN_AFTER_MILLIS;
    private long failoverTimeoutMillis = SentinelTopology.DEFAULT_FAILOVER_TIMEOUT_MILLIS;
    private Path binary;
    private TlsCertificates tls;

    SentinelTopologyBuilder() {
    }

    /** Replicas of the master (0..10); default 2. */
    public SentinelTopologyBuilder replicas(int replicas) {
        if (replicas < 0 || replicas > 10) {
            throw new IllegalArgumentException("replicas must be 0..10: " + replicas);
        }
        this.replicas = replicas;
        return this;
    }

    /** Sentinels (1..9); default 3. The quorum is their majority. */
    public SentinelTopologyBuilder sentinels(int sentinels) {
        if (sentinels < 1 || sentinels > 9) {
            throw new IllegalArgumentException("sentinels must be 1..9: " + sentinels);
        }
        this.sentinels = sentinels;
        return this;
    }

    /** The name the master is monitored under; default {@value SentinelTopology#DEFAULT_MASTER_NAME}. */
    public SentinelTopologyBuilder masterName(String masterName) {
        Objects.requireNonNull(masterName, "masterName");
        if (!masterName.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("masterName must be letters, digits, '.', '_' or '-': "
                    + masterName);
        }
        this.masterName = masterName;
        return this;
    }

    /**
     * {@code down-after-milliseconds} (at least 100 ms); default
     * {@value SentinelTopology#DEFAULT_DOWN_AFTER_MILLIS} ms.
     */
    public SentinelTopologyBuilder downAfter(Duration downAfter) {
        this.downAfterMillis = atLeast(downAfter, 100, "downAfter");
        return this;
    }

    /**
     * {@code failover-timeout} (at least 1 s); default {@value SentinelTopology#DEFAULT_FAILOVER_TIMEOUT_MILLIS}
     * ms.
     */
    public SentinelTopologyBuilder failoverTimeout(Duration failoverTimeout) {
        this.failoverTimeoutMillis = atLeast(failoverTimeout, 1000, "failoverTimeout");
        return this;
    }

    /**
     * Every data server and Sentinel serves TLS only with these certificates (no client certificate asked),
     * replication and the Sentinels' own connections included ({@code tls-replication yes});
     * {@link SentinelTopology#uri()} is then {@code rediss-sentinel://}. See
     * {@link RedisServerBuilder#tls(RedisServer.ClientAuth, TlsCertificates)}.
     */
    public SentinelTopologyBuilder tls(TlsCertificates certificates) {
        this.tls = Objects.requireNonNull(certificates, "certificates");
        return this;
    }

    /** The {@code redis-server} to run (for data servers and Sentinels); default {@link RedisBinary#resolve()}. */
    public SentinelTopologyBuilder binary(Path binary) {
        this.binary = Objects.requireNonNull(binary, "binary");
        return this;
    }

    /**
     * Starts the processes and blocks until the deployment is healthy (at most 30 s).
     *
     * @throws IllegalStateException when a process does not start or the deployment does not become healthy;
     *                               nothing is left running then
     */
    public SentinelTopology start() {
        List<RedisServer> data = new ArrayList<>();
        List<RedisServer> sentinelServers = new ArrayList<>();
        try {
            RedisServerBuilder dataBuilder = RedisServer.builder()
                    .config("repl-diskless-sync", "yes")
                    .config("repl-diskless-sync-delay", "0");
            if (binary != null) {
                dataBuilder.binary(binary);
            }
            if (tls != null) {
                dataBuilder.tls(RedisServer.ClientAuth.NO, tls);
            }
            RedisServer master = dataBuilder.start();
            data.add(master);
            for (int i = 0; i < replicas; i++) {
                RedisServer replica = dataBuilder.start();
                data.add(replica);
                SentinelTopology.replicate(replica, master);
            }
            Await.untilNoProblem(SentinelTopology.SETTLE_TIMEOUT, () -> {
                for (RedisServer replica : data.subList(1, data.size())) {
                    String info = replica.infoOrNull("replication", CALL_TIMEOUT);
                    if (info == null || !"up".equals(Resp.infoField(info, "master_link_status"))) {
                        return replica + " not in sync";
                    }
                }
                return null;
            }, "replicas in sync with " + master);
            String config = "sentinel monitor " + masterName + " " + RedisServer.HOST + " " + master.port() + " "
                    + (sentinels / 2 + 1) + "\n"
                    + "sentinel down-after-milliseconds " + masterName + " " + downAfterMillis + "\n"
                    + "sentinel failover-timeout " + masterName + " " + failoverTimeoutMillis + "\n"
                    + "sentinel parallel-syncs " + masterName + " " + Math.max(1, replicas) + "\n";
            for (int i = 0; i < sentinels; i++) {
                RedisServerBuilder sentinelBuilder = RedisServer.builder().sentinel(config);
                if (binary != null) {
                    sentinelBuilder.binary(binary);
                }
                if (tls != null) {
                    sentinelBuilder.tls(RedisServer.ClientAuth.NO, tls);
                }
                sentinelServers.add(sentinelBuilder.start());
            }
            SentinelTopology topology = new SentinelTopology(masterName, data, sentinelServers);
            topology.awaitHealthy();
            LOG.debug("started {}", topology);
            return topology;
        } catch (RuntimeException e) {
            sentinelServers.forEach(RedisServer::close);
            data.forEach(RedisServer::close);
            throw e;
        }
    }

    private static long atLeast(Duration value, long minMillis, String parameter) {
        Objects.requireNonNull(value, parameter);
        if (value.toMillis() < minMillis) {
            throw new IllegalArgumentException(parameter + " must be at least " + minMillis + " ms: " + value);
        }
        return value.toMillis();
    }
}
