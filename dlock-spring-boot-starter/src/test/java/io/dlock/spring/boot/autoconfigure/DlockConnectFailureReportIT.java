package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.redisprocess.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * When dlock cannot connect, a real {@link SpringApplication} run prints Boot's "APPLICATION FAILED TO START" report
 * with dlock's cause first and the property to set (issue 20.15), never the password: a wrong password (through
 * {@code dlock.redis-uri} and through {@code spring.data.redis.*}), an ACL user without the probe's channels, nothing
 * listening, plain text to a TLS port, an untrusted certificate, a host name not in the certificate; and
 * {@code dlock.tls.verify=ca} connecting to that last server (20.14).
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 120, unit = SECONDS)
class DlockConnectFailureReportIT {
    private static final String PASSWORD = "Zx9-report-secret";
    private static RedisServer plain;
    private static RedisServer tls;
    private static RedisServer dnsOnly;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @BeforeAll
    static void start() {
        plain = RedisServer.start();
        Duration t = Duration.ofSeconds(2);
        plain.command(t, "ACL", "SETUSER", "app", "on", ">" + PASSWORD, "~*", "&*", "+@all");
        plain.command(t, "ACL", "SETUSER", "no-channels", "reset", "resetchannels", "on", ">" + PASSWORD, "~*",
                "+@all");
        tls = RedisServer.builder().tls(RedisServer.ClientAuth.NO).start();
        dnsOnly = RedisServer.builder().tls(RedisServer.ClientAuth.NO).tlsServerNames("redis.test").start();
    }

    @AfterAll
    static void stop() {
        for (RedisServer server : new RedisServer[] {plain, tls, dnsOnly}) {
            if (server != null) {
                server.close();
            }
        }
    }

    private static ConfigurableApplicationContext run(String... properties) {
        List<String> args = new ArrayList<>(List.of("--spring.main.banner-mode=off",
                "--management.health.redis.enabled=false"));
        for (String p : properties) {
            args.add("--" + p);
        }
        SpringApplication app = new SpringApplication(App.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        return app.run(args.toArray(String[]::new));
    }

    /** Runs the application, which must fail; returns what it printed from this run on. */
    private static String report(CapturedOutput output, String... properties) {
        int from = output.getAll().length();
        assertThatThrownBy(() -> run(properties).close()).isNotNull();
        String printed = output.getAll().substring(from);
        assertThat(printed).contains("APPLICATION FAILED TO START", "Description:", "Action:")
                .doesNotContain(PASSWORD);
        return printed;
    }

    private static String uri(RedisServer server, String user, String password) {
        return server.uri().replace("://", "://" + user + ":" + password + "@");
    }

    @Test
    void aWrongPassword(CapturedOutput output) {
        assertThat(report(output, "dlock.redis-uri=" + uri(plain, "app", "not" + PASSWORD)))
                .contains("dlock could not connect to Redis: authentication refused: ", "WRONGPASS",
                        "in dlock.redis-uri, redis://user:password@host:port");
        assertThat(report(output, "spring.data.redis.port=" + plain.port(), "spring.data.redis.username=app",
                "spring.data.redis.password=not" + PASSWORD))
                .contains("authentication refused: ", "spring.data.redis.username and spring.data.redis.password");
    }

    @Test
    void anAclUserWithoutTheProbesChannels(CapturedOutput output) {
        assertThat(report(output, "dlock.redis-uri=" + uri(plain, "no-channels", PASSWORD)))
                .contains("ACL permission missing: ", "NOPERM", "dlock.tuning.probe-lock-name");
    }

    @Test
    void nothingListening(CapturedOutput output) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        assertThat(report(output, "dlock.redis-uri=redis://app:" + PASSWORD + "@127.0.0.1:" + port))
                .contains("Redis unreachable: ", "Check that Redis runs and can be reached at dlock.redis-uri");
    }

    @Test
    void plainTextToATlsPort(CapturedOutput output) {
        assertThat(report(output, "dlock.redis-uri=" + tls.uri().replace("rediss://", "redis://")))
                .contains("server expects TLS: ", "a rediss:// dlock.redis-uri");
    }

    @Test
    void anUntrustedCertificate(CapturedOutput output, @TempDir Path otherCa) {
        TlsCertificates stranger = TlsCertificates.generate(otherCa);
        assertThat(report(output, "dlock.redis-uri=" + tls.uri(),
                "dlock.tls.trusted-certificates=" + stranger.caCertificate()))
                .contains("certificate not trusted: ", "dlock.tls.trusted-certificates");
    }

    @Test
    void aHostNameNotInTheCertificateAndVerifyCa(CapturedOutput output) {
        String ca = "dlock.tls.trusted-certificates=" + dnsOnly.tlsCertificates().caCertificate();
        assertThat(report(output, "dlock.redis-uri=" + dnsOnly.uri(), ca))
                .contains("host name not in certificate: ", "dlock.tls.verify=ca");
        assertThat(report(output, "dlock.redis-uri=" + dnsOnly.uri(), ca, "dlock.tls.verify=ca",
                "dlock.tls.verify-peer=false")).contains("dlock.tls.verify", "give dlock.tls.verify alone");
        try (ConfigurableApplicationContext context = run("dlock.redis-uri=" + dnsOnly.uri(), ca,
                "dlock.tls.verify=ca")) {
            LockClient client = context.getBean(LockClient.class);
            assertThat(client.config().tls().verification()).isEqualTo(io.dlock.TlsSettings.Verification.CA);
            client.getLock("report:ok").lock();
            client.getLock("report:ok").unlock();
        }
    }
}
