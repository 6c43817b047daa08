package io.dlock.it;

import io.dlock.ConnectionFailedException;
import io.dlock.LockClientConfig;
import io.dlock.TlsSettings;
import io.dlock.redisprocess.ClusterTopology;
import io.dlock.redisprocess.RedisTopology;
import io.dlock.redisprocess.SentinelTopology;
import io.dlock.redisprocess.TlsCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * TLS verification modes on Sentinel and Cluster (issue 20.14): the servers' certificate names only DNS names, while
 * Sentinel hands out its master and a Cluster its nodes by IP address. {@code FULL} refuses them ("host name not in
 * certificate"); {@code CA} checks the chain only and connects, and still refuses a certificate of another CA.
 */
@Timeout(value = 120, unit = SECONDS)
class TlsTopologiesIT {

    @Test
    void sentinelWithDnsOnlyCertificates(@TempDir Path dir, @TempDir Path otherCa) {
        TlsCertificates certs = TlsCertificates.generate(dir, List.of("redis.test"));
        try (SentinelTopology sentinel = SentinelTopology.builder().tls(certs).start()) {
            assertThat(sentinel.uri()).startsWith("rediss-sentinel://");
            checkModes(sentinel, certs, TlsCertificates.generate(otherCa));
        }
    }

    @Test
    void clusterWithDnsOnlyCertificates(@TempDir Path dir, @TempDir Path otherCa) {
        TlsCertificates certs = TlsCertificates.generate(dir, List.of("redis.test"));
        try (ClusterTopology cluster = ClusterTopology.builder().tls(certs).start()) {
            assertThat(cluster.uri()).startsWith("rediss-cluster://");
            checkModes(cluster, certs, TlsCertificates.generate(otherCa));
        }
    }

    private static void checkModes(RedisTopology topology, TlsCertificates certs, TlsCertificates stranger) {
        TlsSettings.Builder trusting = TlsSettings.builder().trustedCertificates(certs.caCertificate());
        ConnectionFailedException full = catchThrowableOfType(ConnectionFailedException.class,
                () -> io.dlock.LockClient.create(config(topology, trusting.build())).close());
        assertThat(full).isNotNull();
        assertThat(full.reason()).as(full.getMessage())
                .isEqualTo(ConnectionFailedException.Reason.HOST_NAME_NOT_IN_CERTIFICATE);

        ConnectFailureIT.locks(config(topology,
                trusting.verification(TlsSettings.Verification.CA).build()));

        ConnectionFailedException untrusted = catchThrowableOfType(ConnectionFailedException.class,
                () -> io.dlock.LockClient.create(config(topology, TlsSettings.builder()
                        .trustedCertificates(stranger.caCertificate())
                        .verification(TlsSettings.Verification.CA).build())).close());
        assertThat(untrusted).isNotNull();
        assertThat(untrusted.reason()).as(untrusted.getMessage())
                .isEqualTo(ConnectionFailedException.Reason.CERTIFICATE_NOT_TRUSTED);
    }

    private static LockClientConfig config(RedisTopology topology, TlsSettings tls) {
        return LockClientConfig.builder().redisUri(topology.uri()).tls(tls).build();
    }
}
