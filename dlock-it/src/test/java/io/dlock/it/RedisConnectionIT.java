package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.RedisConnection;
import io.dlock.RedisConnection.Node;
import io.dlock.TlsSettings;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.redisprocess.TlsCertificates;
import io.lettuce.core.AclSetuserArgs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A {@link RedisConnection} reaches each kind of deployment as the Redis URI of the same deployment does: a client
 * given one holds a lock that a client given the other sees held (same server, same database, same master), on a
 * standalone server with an ACL user and a database, a Sentinel deployment (also with Sentinels that require a
 * password, which only the structured form can give), a Cluster, and a mutual-TLS server. Nothing shows a password.
 */
@Timeout(value = 120, unit = SECONDS)
class RedisConnectionIT {
    private static final String PASSWORD = CredentialsIT.PASSWORD;
    private static final String SENTINEL_PASSWORD = "Sent1nel-pw";
    private static final Duration COMMAND = Duration.ofSeconds(2);

    @Test
    void standaloneWithAnAclUserAndADatabase() {
        try (RedisServer redis = RedisServer.start()) {
            try (RawRedis raw = RawRedis.connect(redis.uri())) {
                raw.sync().aclSetuser("app", AclSetuserArgs.Builder.on().addPassword(PASSWORD).allKeys()
                        .allChannels().allCommands());
            }
            RedisConnection connection = RedisConnection.standalone(redis.host(), redis.port())
                    .credentials("app", PASSWORD.toCharArray()).database(5).build();
            String uri = "redis://app:" + CredentialsIT.encoded(PASSWORD) + "@" + redis.host() + ":" + redis.port()
                    + "/5";
            try (LockClient structured = create(LockClientConfig.builder().connection(connection));
                 LockClient byUri = LockClient.connect(uri);
                 LockClient database0 = LockClient.connect(redis.uri())) {
                assertSameDeployment(structured, byUri, "standalone");
                DistributedLock held = structured.getLock("standalone:db");
                held.lock();
                assertThat(database0.getLock("standalone:db").isLocked()).as("another database").isFalse();
                held.unlock();
                for (String shown : List.of(structured.toString(), structured.config().toString())) {
                    assertThat(shown).contains("standalone " + redis.host() + ":" + redis.port())
                            .doesNotContain("S3cr", "app");
                }
            }
            Throwable wrong = catchThrowable(() -> create(LockClientConfig.builder().connection(connection
                    .toBuilder().credentials("app", (PASSWORD + "-wrong").toCharArray()).build())).close());
            assertThat(wrong).isInstanceOf(LockException.class).hasMessageContaining("cannot connect to Redis at "
                    + "standalone " + redis.host() + ":" + redis.port() + " (database 5, credentials ***)");
            CredentialsIT.assertNoSecret(CredentialsIT.everything(wrong));
        }
    }

    @Test
    void sentinelAndSentinelsThatRequireAPassword() {
        try (SentinelTopology redis = SentinelTopology.builder().replicas(1).start()) {
            List<Node> sentinels = redis.sentinels().stream().map(s -> new Node(s.host(), s.port())).toList();
            RedisConnection connection = RedisConnection.sentinel(redis.masterName(), sentinels).build();
            try (LockClient structured = create(LockClientConfig.builder().connection(connection));
                 LockClient byUri = LockClient.connect(redis.uri())) {
                assertSameDeployment(structured, byUri, "sentinel");
            }

            RedisServer master = redis.master(); // asked before the Sentinels want a password
            for (RedisServer sentinel : redis.sentinels()) {
                sentinel.command(COMMAND, "ACL", "SETUSER", "default", "resetpass", ">" + SENTINEL_PASSWORD);
            }
            // a redis-sentinel:// URI has no way to give the Sentinels a password of their own
            Throwable byUri = catchThrowable(() -> create(LockClientConfig.builder().redisUri(redis.uri())).close());
            assertThat(byUri).isInstanceOf(LockException.class).hasMessageContaining("cannot connect");
            RedisConnection withPassword = connection.toBuilder()
                    .sentinelCredentials(null, SENTINEL_PASSWORD.toCharArray()).build();
            try (LockClient structured = create(LockClientConfig.builder().connection(withPassword))) {
                DistributedLock lock = structured.getLock("sentinel:auth");
                lock.lock();
                assertThat(master.command(COMMAND, "EXISTS", "sentinel:auth")).isEqualTo("1");
                lock.unlock();
                assertThat(structured.toString()).contains("Sentinel credentials ***")
                        .doesNotContain(SENTINEL_PASSWORD);
            }
        }
    }

    @Test
    void cluster() {
        try (ClusterTopology cluster = ClusterTopology.builder().replicasPerMaster(0).start()) {
            List<Node> seeds = cluster.nodes().stream().map(n -> new Node(n.host(), n.port())).toList();
            RedisConnection connection = RedisConnection.cluster(seeds.subList(0, 1)).build();
            try (LockClient structured = create(LockClientConfig.builder().connection(connection));
                 LockClient byUri = LockClient.connect(cluster.uri())) {
                // names on different shards: the seed led to the whole topology
                for (String name : List.of("a", "b", "c", "orders:{42}")) {
                    assertSameDeployment(structured, byUri, name);
                }
            }
        }
    }

    @Test
    void mutualTls() {
        RedisServer mutual = TlsIT.startOrSkip(RedisServer.ClientAuth.YES);
        try (mutual) {
            TlsCertificates certs = mutual.tlsCertificates();
            TlsSettings tls = TlsSettings.builder().trustedCertificates(certs.caCertificate())
                    .keyStore(certs.clientKeyStore(), certs.storePassword()).build();
            RedisConnection connection = RedisConnection.standalone(mutual.host(), mutual.port()).tls(true).build();
            try (LockClient structured = create(LockClientConfig.builder().connection(connection).tls(tls));
                 LockClient byUri = create(LockClientConfig.builder().redisUri(mutual.uri()).tls(tls))) {
                assertSameDeployment(structured, byUri, "tls");
                assertThat(structured.config().toString()).doesNotContain(new String(certs.storePassword()));
            }
            RedisConnection plain = RedisConnection.standalone(mutual.host(), mutual.port()).build();
            assertThatThrownBy(() -> create(LockClientConfig.builder().connection(plain).tls(tls)).close())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the connection is not TLS");
        }
    }

    private static LockClient create(LockClientConfig.Builder config) {
        return LockClient.create(config.commandTimeout(COMMAND).build());
    }

    /** A lock {@code a} holds is seen held by {@code b}, and free again once released; and the other way round. */
    private static void assertSameDeployment(LockClient a, LockClient b, String name) {
        for (LockClient[] pair : new LockClient[][] {{a, b}, {b, a}}) {
            DistributedLock lock = pair[0].getLock(name);
            lock.lock();
            assertThat(pair[1].getLock(name).isLocked()).as(name + " held").isTrue();
            assertThat(pair[1].getLock(name).tryLock()).isFalse();
            lock.unlock();
            assertThat(pair[1].getLock(name).isLocked()).as(name + " released").isFalse();
        }
    }
}
