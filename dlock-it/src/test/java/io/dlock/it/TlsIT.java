package io.dlock.it;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.LockException;
import io.dlock.TlsSettings;
import io.dlock.it.support.Subscribers;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * TLS ({@code rediss://}) against real TLS {@code redis-server}s started by dlock-redis-process with freshly generated
 * certificates: one that asks no client certificate, one that requires it (mutual TLS). Skipped, with the reason,
 * where the binary was built without TLS.
 */
@Timeout(value = 60, unit = SECONDS)
class TlsIT {
    static RedisServer tls;
    static RedisServer mutual;

    @BeforeAll
    static void startTlsServers() {
        tls = startOrSkip(RedisServer.ClientAuth.NO);
        mutual = startOrSkip(RedisServer.ClientAuth.YES);
    }

    @AfterAll
    static void stop() {
        for (RedisServer server : new RedisServer[] {tls, mutual}) {
            if (server != null) {
                server.close();
            }
        }
    }

    /** Starts a TLS server; skips the class when the binary does not know the TLS options. */
    static RedisServer startOrSkip(RedisServer.ClientAuth clientAuth) {
        try {
            return RedisServer.builder().tls(clientAuth).start();
        } catch (IllegalStateException e) {
            String message = String.valueOf(e.getMessage());
            assumeTrue(!(message.contains("tls-port") && (message.contains("Bad directive")
                            || message.contains("wrong number of arguments"))),
                    "this redis-server was built without TLS (no --tls-port): " + message);
            throw e;
        }
    }

    static LockClientConfig.Builder config(RedisServer server, TlsSettings.Builder tls) {
        return LockClientConfig.builder().redisUri(server.uri()).tls(tls.build());
    }

    @Test
    void locksOverTlsTrustingTheCaAsPemWithWakeUps() throws Exception {
        assertThat(tls.uri()).startsWith("rediss://");
        LockClientConfig config = config(tls, TlsSettings.builder()
                .trustedCertificates(tls.tlsCertificates().caCertificate())).build();
        try (LockClient a = LockClient.create(config); LockClient b = LockClient.create(config)) {
            contend(a.getLock("tls:plain"), b.getLock("tls:plain"));
            contend(a.getFairLock("tls:fair"), b.getFairLock("tls:fair"));
        }
    }

    @Test
    void locksOverTlsWithAPkcs12TrustStoreWhosePasswordIsNeverShown() {
        TlsCertificates certs = tls.tlsCertificates();
        LockClientConfig config = config(tls, TlsSettings.builder()
                .trustStore(certs.trustStore(), certs.storePassword())).build();
        assertThat(config.toString()).contains(certs.trustStore().toString())
                .doesNotContain(new String(certs.storePassword()));
        assertThat(config.toBuilder().build().tls().trustStorePassword()).isEqualTo(certs.storePassword());
        try (LockClient client = LockClient.create(config)) {
            DistributedLock lock = client.getLock("tls:truststore");
            lock.lock();
            assertThat(lock.isLocked()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void aServerCertificateFromAnotherCaIsRefusedAtConnect(@TempDir Path otherCa) {
        TlsCertificates stranger = TlsCertificates.generate(otherCa);
        assertThatThrownBy(() -> LockClient.create(config(tls, TlsSettings.builder()
                .trustedCertificates(stranger.caCertificate())).build()).close())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("cannot connect to Redis at " + tls.uri())
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("certification path");
        // the JVM's default trust store does not know the test CA either
        assertThatThrownBy(() -> LockClient.connect(tls.uri()).close())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("certification path");
    }

    @Test
    void verifyPeerFalseConnectsToAnUntrustedCertificate() {
        try (LockClient client = LockClient.create(config(tls, TlsSettings.builder().verifyPeer(false)).build())) {
            DistributedLock lock = client.getLock("tls:unverified");
            lock.lock();
            lock.unlock();
        }
    }

    @Test
    void mutualTlsNeedsTheClientCertificate() {
        TlsCertificates certs = mutual.tlsCertificates();
        LockClientConfig withCert = config(mutual, TlsSettings.builder().trustedCertificates(certs.caCertificate())
                .keyStore(certs.clientKeyStore(), certs.storePassword())).build();
        assertThat(withCert.toString()).doesNotContain(new String(certs.storePassword()));
        try (LockClient client = LockClient.create(withCert)) {
            DistributedLock lock = client.getLock("tls:mutual");
            lock.lock();
            lock.unlock();
        }
        assertThatThrownBy(() -> LockClient.create(config(mutual, TlsSettings.builder()
                .trustedCertificates(certs.caCertificate())).build())
                .close())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("cannot connect to Redis at " + mutual.uri());
    }

    @Test
    void tlsOptionsWithAPlainUriAreRefused() {
        LockClientConfig config = LockClientConfig.builder().redisUri("redis://127.0.0.1:" + tls.port())
                .tls(TlsSettings.builder().trustedCertificates(tls.tlsCertificates().caCertificate()).build()).build();
        assertThatThrownBy(() -> LockClient.create(config).close())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the connection is not TLS");
    }

    @Test
    void missingStoreFilesAreRefusedByTheBuilder(@TempDir Path dir) {
        assertThatThrownBy(() -> TlsSettings.builder().trustStore(dir.resolve("none.p12"), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls.trustStore is not a readable file");
        assertThatThrownBy(() -> TlsSettings.builder().keyStore(dir, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tls.keyStore is not a readable file");
    }

    /**
     * {@code holder} holds; {@code waiter} waits on another thread, subscribed to the lock's channel (as the server's
     * {@code PUBSUB CHANNELS} shows), and is woken by the release (pub/sub over TLS).
     */
    private void contend(DistributedLock holder, DistributedLock waiter) throws Exception {
        Callable<List<String>> channels = () -> ((List<?>) tls.command(Duration.ofSeconds(5), "PUBSUB", "CHANNELS"))
                .stream().map(String::valueOf).toList();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Subscribers.awaitChannels(channels, holder.getName(), 0);
            holder.lock();
            Future<Long> acquiredAt = thread.submit(() -> {
                assertThat(waiter.tryLock(20, SECONDS)).isTrue();
                long at = System.nanoTime();
                waiter.unlock();
                return at;
            });
            Subscribers.awaitChannels(channels, holder.getName(), 1);
            assertThat(acquiredAt).isNotDone();
            long releasedAt = System.nanoTime();
            holder.unlock();
            assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(20, SECONDS) - releasedAt)).isLessThan(2000);
        } finally {
            thread.shutdownNow();
        }
    }
}
