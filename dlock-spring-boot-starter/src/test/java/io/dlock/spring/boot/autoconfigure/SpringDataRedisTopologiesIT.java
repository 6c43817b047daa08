package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.redisprocess.TlsCertificates;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * dlock follows {@code spring.data.redis.*} to a Sentinel deployment (also with Sentinels that have a password of
 * their own), a Cluster, and a TLS server (SSL bundle).
 */
class SpringDataRedisTopologiesIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
                    DlockAutoConfiguration.class));

    @Test
    void sentinel() {
        try (SentinelTopology redis = SentinelTopology.start()) {
            String nodes = redis.sentinels().stream().map(s -> s.host() + ":" + s.port())
                    .collect(Collectors.joining(","));
            runner.withPropertyValues("spring.data.redis.sentinel.master=" + redis.masterName(),
                            "spring.data.redis.sentinel.nodes=" + nodes)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        LockClient client = context.getBean(LockClient.class);
                        assertThat(client.getLock("s").tryLock()).isTrue();
                        assertThat(client.inspect("s").holders()).hasSize(1);
                        client.getLock("s").unlock();
                    });
            // Sentinels with a password of their own (spring.data.redis.sentinel.password): the data nodes have none
            for (RedisServer sentinel : redis.sentinels()) {
                sentinel.command(Duration.ofSeconds(2), "ACL", "SETUSER", "default", "resetpass", ">sentinel-pw");
            }
            runner.withPropertyValues("spring.data.redis.sentinel.master=" + redis.masterName(),
                            "spring.data.redis.sentinel.nodes=" + nodes,
                            "spring.data.redis.sentinel.password=sentinel-pw")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        LockClient client = context.getBean(LockClient.class);
                        assertThat(client.config().connection().orElseThrow().sentinelPassword())
                                .isEqualTo("sentinel-pw".toCharArray());
                        assertThat(client.getLock("s").tryLock()).isTrue();
                        client.getLock("s").unlock();
                        assertThat(client.config().toString()).doesNotContain("sentinel-pw");
                    });
        }
    }

    @Test
    void cluster() {
        try (ClusterTopology cluster = ClusterTopology.start()) {
            String nodes = cluster.nodes().stream().map(n -> n.host() + ":" + n.port())
                    .collect(Collectors.joining(","));
            runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        LockClient client = context.getBean(LockClient.class);
                        for (String name : new String[] {"a", "b", "c", "orders:{42}"}) {
                            assertThat(client.getLock(name).tryLock()).isTrue();
                            client.getLock(name).unlock();
                        }
                    });
        }
    }

    @Test
    void tlsWithAnSslBundleAndAClientCertificate() {
        try (RedisServer redis = RedisServer.builder().tls(RedisServer.ClientAuth.YES).start()) {
            TlsCertificates certs = redis.tlsCertificates();
            runner.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                            "spring.data.redis.ssl.bundle=redis",
                            "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certs.caCertificate(),
                            "spring.ssl.bundle.pem.redis.keystore.certificate=file:" + certs.clientCertificate(),
                            "spring.ssl.bundle.pem.redis.keystore.private-key=file:" + certs.clientKey())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(DlockConnectionDetails.class).getConnection().tls()).isTrue();
                        LockClient client = context.getBean(LockClient.class);
                        assertThat(client.getLock("t").tryLock()).isTrue();
                        client.getLock("t").unlock();
                    });
            // without the bundle's client certificate the server refuses the handshake
            runner.withPropertyValues("dlock.redis-uri=" + redis.uri(), "dlock.command-timeout=2s")
                    .run(context -> assertThat(context).hasFailed());
        }
    }
}
