package io.dlock.it;

import io.dlock.ConnectionFailedException;
import io.dlock.ConnectionFailedException.Reason;
import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import io.dlock.TlsSettings;
import io.dlock.it.support.RawRedis;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.TlsCertificates;
import io.lettuce.core.AclSetuserArgs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A client that cannot connect says why, first and as a {@link Reason} (issue 20.15): a wrong password, a missing ACL
 * permission, nothing listening, plain text to a TLS port (and TLS to a plain one), an untrusted certificate, a host name
 * not in the certificate; and the verification mode that checks the chain but not the host name (20.14). Against real
 * servers: a plain one with ACL users, TLS ones with generated certificates.
 */
@Timeout(value = 60, unit = SECONDS)
class ConnectFailureIT {
    static final String PASSWORD = "pw-Zq81-secret";
    static RedisServer plain;
    static RedisServer tls;
    static RedisServer dnsOnly;

    @BeforeAll
    static void start() {
        plain = RedisServer.start();
        try (RawRedis raw = RawRedis.connect(plain.uri())) {
            raw.sync().aclSetuser("app", AclSetuserArgs.Builder.on().addPassword(PASSWORD).allKeys().allChannels()
                    .allCommands());
        }
        plain.command(Duration.ofSeconds(2), "ACL", "SETUSER", "no-channels", "reset", "resetchannels", "on",
                ">" + PASSWORD, "~*", "+@all");
        tls = TlsIT.startOrSkip(RedisServer.ClientAuth.NO);
        dnsOnly = RedisServer.builder().tls(RedisServer.ClientAuth.NO).tlsServerNames("localhost", "redis.test")
                .start();
    }

    @AfterAll
    static void stop() {
        for (RedisServer server : new RedisServer[] {plain, tls, dnsOnly}) {
            if (server != null) {
                server.close();
            }
        }
    }

    static String withUser(String uri, String user, String password) {
        return uri.replace("://", "://" + user + ":" + password + "@");
    }

    static ConnectionFailedException failure(LockClientConfig config) {
        return catchThrowableOfType(ConnectionFailedException.class, () -> LockClient.create(config).close());
    }

    static ConnectionFailedException failure(String uri) {
        return failure(LockClientConfig.builder().redisUri(uri).commandTimeout(Duration.ofMillis(500)).build());
    }

    static void assertReason(ConnectionFailedException e, Reason reason) {
        assertThat(e).as("expected %s", reason).isNotNull();
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
        assertThat(e.getMessage()).startsWith(reason.description() + ": ").doesNotContain(PASSWORD);
    }

    @Test
    void aWrongPasswordIsAuthenticationRefused() {
        ConnectionFailedException e = failure(withUser(plain.uri(), "app", "wrong-" + PASSWORD));
        assertReason(e, Reason.AUTHENTICATION_REFUSED);
        assertThat(e.getMessage()).contains("WRONGPASS");
        assertThat(e.isTransient()).isFalse();
    }

    @Test
    void aUserWithoutChannelsIsPermissionDenied() {
        ConnectionFailedException e = failure(withUser(plain.uri(), "no-channels", PASSWORD));
        assertReason(e, Reason.PERMISSION_DENIED);
        assertThat(e.getMessage()).contains("NOPERM").contains("probeLockName");
    }

    @Test
    void nothingListeningIsUnreachable() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        ConnectionFailedException e = failure("redis://127.0.0.1:" + port);
        assertReason(e, Reason.UNREACHABLE);
        assertThat(e.isTransient()).isTrue();
    }

    @Test
    void plainTextToATlsPortIsServerExpectsTls() {
        ConnectionFailedException e = failure(tls.uri().replace("rediss://", "redis://"));
        assertReason(e, Reason.SERVER_EXPECTS_TLS);
        assertThat(e.getMessage()).contains("rediss://");
    }

    @Test
    void tlsToAPlainPortIsUnreachableWithAHint() {
        // a plain-text port takes the TLS handshake for the start of a command and waits: nothing answers
        ConnectionFailedException e = failure(plain.uri().replace("redis://", "rediss://"));
        assertReason(e, Reason.UNREACHABLE);
        assertThat(e.getMessage()).contains("is the port a TLS port");
    }

    @Test
    void aCertificateFromAnotherCaIsNotTrusted(@TempDir Path otherCa) {
        TlsCertificates stranger = TlsCertificates.generate(otherCa);
        ConnectionFailedException e = failure(LockClientConfig.builder().redisUri(tls.uri())
                .tls(TlsSettings.builder().trustedCertificates(stranger.caCertificate()).build()).build());
        assertReason(e, Reason.CERTIFICATE_NOT_TRUSTED);
        assertThat(e.getMessage()).contains("TLS handshake failed");
    }

    @Test
    void aCertificateWithOnlyDnsNamesReachedByIpIsHostNameNotInCertificate() {
        TlsSettings.Builder trusting = TlsSettings.builder()
                .trustedCertificates(dnsOnly.tlsCertificates().caCertificate());
        ConnectionFailedException e = failure(LockClientConfig.builder().redisUri(dnsOnly.uri())
                .tls(trusting.build()).build());
        assertReason(e, Reason.HOST_NAME_NOT_IN_CERTIFICATE);
        // by a name the certificate carries, full verification passes
        locks(LockClientConfig.builder().redisUri("rediss://localhost:" + dnsOnly.port()).tls(trusting.build())
                .build());
    }

    @Test
    void verificationCaChecksTheChainButNotTheHostName(@TempDir Path otherCa) {
        TlsSettings.Builder caOnly = TlsSettings.builder().verification(TlsSettings.Verification.CA);
        locks(LockClientConfig.builder().redisUri(dnsOnly.uri()).tls(caOnly
                .trustedCertificates(dnsOnly.tlsCertificates().caCertificate()).build()).build());
        TlsCertificates stranger = TlsCertificates.generate(otherCa);
        ConnectionFailedException e = failure(LockClientConfig.builder().redisUri(dnsOnly.uri())
                .tls(TlsSettings.builder().verification(TlsSettings.Verification.CA)
                        .trustedCertificates(stranger.caCertificate()).build()).build());
        assertReason(e, Reason.CERTIFICATE_NOT_TRUSTED);
    }

    @Test
    void aServerWithInfoDisabledConnectsAndSkipsTheVersionCheck() {
        try (RedisServer noInfo = RedisServer.builder().renameCommand("INFO", "").start()) {
            String logged = CredentialsIT.capturingStdErr(() -> {
                locks(LockClientConfig.builder().redisUri(noInfo.uri()).build());
                return null;
            });
            assertThat(logged).contains("cannot check the version of Redis at " + noInfo.uri())
                    .contains("INFO is renamed or disabled");
        }
    }

    static void locks(LockClientConfig config) {
        try (LockClient client = LockClient.create(config)) {
            DistributedLock lock = client.getLock("connect:ok");
            lock.lock();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();
        }
    }
}
