package io.dlock.cli;

import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the command line connects (issue 20.9, 20.12): the password from a file or {@code $DLOCK_PASSWORD} instead of
 * the command line (and a warning when {@code --redis} carries one), distinct exit codes by cause (77 refused, 78
 * settings that do not fit the server, 69 unreachable), the probe lock name of a least-privilege ACL rule, and TLS
 * trust, client certificate and verification mode. Real servers: a plain one with ACL users, TLS ones with generated
 * certificates (mutual TLS; one whose certificate names DNS names only).
 */
@Timeout(value = 120, unit = SECONDS)
class ConnectOptionsIT {
    private static final String PASSWORD = "Pq7/zK@m9%Xv \"q' x9";
    private static RedisServer plain;
    private static RedisServer mutual;
    private static RedisServer dnsOnly;
    private static String hostPort;

    @BeforeAll
    static void start() {
        plain = RedisServer.start();
        hostPort = "127.0.0.1:" + plain.port();
        Duration t = Duration.ofSeconds(2);
        plain.command(t, "ACL", "SETUSER", "alice", "on", ">" + PASSWORD, "~*", "&*", "+@all");
        // the README's least-privilege habit: lock names (and so their channels) with the prefix lock: only
        plain.command(t, "ACL", "SETUSER", "app", "reset", "resetchannels", "on", ">" + PASSWORD, "~*",
                "&redisson_lock__channel:{lock:*", "&redisson_lock__channel:lock:*", "&redisson_rwlock:{lock:*",
                "&redisson_rwlock:lock:*", "+@all");
        mutual = RedisServer.builder().tls(RedisServer.ClientAuth.YES).start();
        dnsOnly = RedisServer.builder().tls(RedisServer.ClientAuth.NO).tlsServerNames("redis.test").start();
    }

    @AfterAll
    static void stop() {
        for (RedisServer server : new RedisServer[] {plain, mutual, dnsOnly}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @AfterEach
    void killLeftovers() {
        DlockProcess.killAll();
    }

    private static DlockProcess dlock(Map<String, String> env, String... args) {
        return DlockProcess.start(env, args).waitFor(Duration.ofSeconds(30));
    }

    private static DlockProcess expect(int code, Map<String, String> env, String... args) {
        DlockProcess p = dlock(env, args);
        assertThat(p.exitCode()).as(p.describe()).isEqualTo(code);
        assertThat(p.stdout() + p.stderr()).as(p.describe()).doesNotContain(PASSWORD).doesNotContain("x9")
                .doesNotContain("\tat ");
        return p;
    }

    @Test
    void aWrongPasswordExits77AndSaysAuthenticationRefused() {
        DlockProcess p = expect(77, Map.of("DLOCK_PASSWORD", "not-" + PASSWORD),
                "status", "--redis", "redis://alice@" + hostPort, "job");
        assertThat(p.stderr()).doesNotContain("not-").startsWith("dlock: authentication refused: cannot connect to Redis at ")
                .contains("WRONGPASS");
    }

    @Test
    void thePasswordComesFromAFileOrTheEnvironmentWithoutWarning(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("redis.pw"), PASSWORD + "\n");
        DlockProcess fromFile = expect(0, Map.of(), "status", "--redis", "redis://alice@" + hostPort,
                "--password-file", file.toString(), "job");
        assertThat(fromFile.stdout()).contains("job");
        assertThat(fromFile.stderr()).doesNotContain("warning");
        // before the command name, as --redis may be
        expect(0, Map.of(), "--password-file", file.toString(), "--redis", "redis://alice@" + hostPort,
                "status", "job");
        DlockProcess fromEnv = expect(0, Map.of("DLOCK_PASSWORD", PASSWORD, "DLOCK_REDIS", "redis://alice@" + hostPort),
                "status", "job");
        assertThat(fromEnv.stderr()).doesNotContain("warning");
        DlockProcess twice = expect(2, Map.of("DLOCK_PASSWORD", PASSWORD),
                "status", "--redis", "redis://alice:" + RedisUris.percentEncode(PASSWORD) + "@" + hostPort, "job");
        assertThat(twice.stderr()).contains("give it once");
        expect(2, Map.of(), "status", "--password-file", dir.resolve("missing").toString(), "job");
        // the demo's worker JVMs get the URI as an argument: it takes no password apart from it
        assertThat(expect(2, Map.of(), "demo", "--redis", "redis://alice@" + hostPort, "--password-file",
                file.toString()).stderr()).contains("dlock demo takes --redis only");
    }

    @Test
    void aPasswordOnTheCommandLineWorksButWarns() {
        DlockProcess p = expect(0, Map.of(), "status", "--redis",
                "redis://alice:" + RedisUris.percentEncode(PASSWORD) + "@" + hostPort, "job");
        assertThat(p.stderr()).contains("dlock: warning: the password in --redis can be read by every user",
                "--password-file", "$DLOCK_PASSWORD");
    }

    @Test
    void theLeastPrivilegeAclRuleNeedsTheProbeLockName() {
        Map<String, String> env = Map.of("DLOCK_PASSWORD", PASSWORD, "DLOCK_REDIS", "redis://app@" + hostPort);
        DlockProcess refused = expect(77, env, "status", "lock:job");
        assertThat(refused.stderr()).startsWith("dlock: ACL permission missing: ").contains("NOPERM",
                "probeLockName");
        expect(0, env, "status", "--probe-lock-name", "lock:dlock-probe", "lock:job");
        DlockProcess run = expect(0, env, "run", "--probe-lock-name", "lock:dlock-probe", "lock:job", "--",
                "sh", "-c", "echo \"pw=[$DLOCK_PASSWORD]\"");
        assertThat(run.stderr()).isEmpty();
        // the command does not get the password
        assertThat(run.stdout()).contains("pw=[]");
    }

    @Test
    void nothingListeningExits69() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertThat(expect(69, Map.of(), "status", "--redis", "redis://127.0.0.1:" + port, "job").stderr())
                .startsWith("dlock: Redis unreachable: cannot connect to Redis at ");
    }

    @Test
    void mutualTlsWithTrustAndClientCertificateOptions() {
        TlsCertificates certs = mutual.tlsCertificates();
        Map<String, String> env = Map.of("DLOCK_TLS_KEY_STORE_PASSWORD", new String(certs.storePassword()),
                "DLOCK_TLS_TRUST_STORE_PASSWORD", new String(certs.storePassword()));
        expect(0, env, "status", "--redis", mutual.uri(), "--tls-trusted-certificates",
                certs.caCertificate().toString(), "--tls-key-store", certs.clientKeyStore().toString(), "job");
        expect(0, env, "run", "--redis", mutual.uri(), "--tls-trust-store", certs.trustStore().toString(),
                "--tls-key-store", certs.clientKeyStore().toString(), "job", "--", "true");
        assertThat(expect(78, env, "status", "--redis", mutual.uri(), "--tls-key-store",
                certs.clientKeyStore().toString(), "job").stderr())
                .startsWith("dlock: certificate not trusted: ");
        assertThat(expect(78, env, "status", "--redis", mutual.uri().replace("rediss:", "redis:"), "job").stderr())
                .startsWith("dlock: server expects TLS: ");
    }

    @Test
    void aCertificateWithDnsNamesOnlyNeedsTlsVerifyCa() {
        String ca = dnsOnly.tlsCertificates().caCertificate().toString();
        assertThat(expect(78, Map.of(), "status", "--redis", dnsOnly.uri(), "--tls-trusted-certificates", ca, "job")
                .stderr()).startsWith("dlock: host name not in certificate: ");
        expect(0, Map.of(), "status", "--redis", dnsOnly.uri(), "--tls-trusted-certificates", ca,
                "--tls-verify", "ca", "job");
    }
}
