package io.dlock.redisprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

class RedisServerIT {

    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    void startedServerAnswersPing() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            assertThat(server.isRunning()).isTrue();
            assertThat(server.isPaused()).isFalse();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.port()).isBetween(1, 65_535);
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(RawPing.ping(server.port(), 2_000)).isEqualTo("+PONG");
            assertThat(server.ping(SHORT)).isTrue();
            assertThat(server.pid()).isEqualTo(ProcessHandle.of(server.pid()).orElseThrow().pid());
            assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
            assertThat(server.log()).contains("Ready to accept connections");
            assertThat(server.toString()).contains(server.uri()).contains("running");
        }
    }

    /** TLS only: the kit's own commands and restarts work over TLS; a plain-text client gets no answer. */
    @Test
    void aTlsServerServesTlsOnlyWithItsGeneratedCertificates() throws IOException {
        try (RedisServer redis = RedisServer.builder().tls(RedisServer.ClientAuth.YES).start()) {
            assertThat(redis.isTls()).isTrue();
            assertThat(redis.uri()).isEqualTo("rediss://127.0.0.1:" + redis.port());
            TlsCertificates certs = redis.tlsCertificates();
            assertThat(certs.caCertificate()).isRegularFile().startsWith(certs.dir());
            assertThat(certs.trustStore()).isRegularFile();
            assertThat(certs.clientKeyStore()).isRegularFile();
            assertThat(redis.ping(Duration.ofSeconds(2))).isTrue();
            assertThat(Resp.call(certs.socketFactory(), RedisServer.HOST, redis.port(), Duration.ofSeconds(2),
                    "SET", "k", "v")).isEqualTo("OK");
            String plainReply;
            try {
                plainReply = RawPing.ping(redis.port(), 500);
            } catch (IOException e) {
                plainReply = e.toString();
            }
            assertThat(plainReply).isNotEqualTo("+PONG");
            redis.restart();
            assertThat(redis.ping(Duration.ofSeconds(2))).isTrue();
        }
        try (RedisServer plain = RedisServer.start()) {
            assertThat(plain.isTls()).isFalse();
            assertThatThrownBy(plain::tlsCertificates).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not a TLS server");
        }
    }

    @Test
    void aServerWithInfoDisabledStartsAndAnswers() throws IOException {
        try (RedisServer redis = RedisServer.builder().renameCommand("INFO", "").start()) {
            assertThat(redis.ping(Duration.ofSeconds(2))).isTrue();
            assertThat(redis.version()).isNull();
            assertThatThrownBy(() -> Resp.call(redis.host(), redis.port(), Duration.ofSeconds(2), "INFO"))
                    .isInstanceOf(Resp.ErrorReplyException.class).hasMessageContaining("unknown command");
        }
    }

    @Test
    void tlsServerNamesAreTheOnlyNamesOfTheServerCertificate() throws Exception {
        try (RedisServer redis = RedisServer.builder().tls(RedisServer.ClientAuth.NO).tlsServerNames("redis.test")
                .start()) {
            java.security.cert.X509Certificate cert;
            try (var in = Files.newInputStream(redis.tlsCertificates().serverCertificate())) {
                cert = (java.security.cert.X509Certificate) java.security.cert.CertificateFactory
                        .getInstance("X.509").generateCertificate(in);
            }
            // type 2 = DNS name; no type 7 (IP address)
            assertThat(cert.getSubjectAlternativeNames()).containsExactly(java.util.List.of(2, "redis.test"));
            assertThat(cert.getExtendedKeyUsage()).contains("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
            assertThat(redis.ping(Duration.ofSeconds(2))).isTrue();
        }
    }

    @Test
    void runsWithoutPersistenceOnLoopback() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            assertThat(config(server, "save")).isEmpty();
            assertThat(config(server, "appendonly")).isEqualTo("no");
            assertThat(config(server, "bind")).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void extraConfigIsPassed() throws IOException {
        try (RedisServer server = RedisServer.builder().config("maxmemory", "10mb").config("--hz", "20").start()) {
            assertThat(config(server, "maxmemory")).isEqualTo(Long.toString(10L * 1024 * 1024));
            assertThat(config(server, "hz")).isEqualTo("20");
        }
    }

    @Test
    void twoServersGetDifferentPorts() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            assertThat(a.pid()).isNotEqualTo(b.pid());
            assertThat(a.ping(SHORT)).isTrue();
            assertThat(b.ping(SHORT)).isTrue();
        }
    }

    @Test
    void givenPortIsUsed() {
        int port = Ports.freePort();
        try (RedisServer server = RedisServer.builder().port(port).start()) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.ping(SHORT)).isTrue();
        }
    }

    @Test
    void takenGivenPortFailsWithTheLogTail() throws IOException {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            assertThatThrownBy(() -> RedisServer.builder().port(taken.getLocalPort()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("Address already in use");
        }
    }

    @Test
    void badConfigFailsWithTheServersOutput() {
        assertThatThrownBy(() -> RedisServer.builder().config("maxmemory", "not-a-size").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("maxmemory");
    }

    @Test
    void restartKeepsThePortAndLosesTheData() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            long pid = server.pid();
            assertThat(call(server, "SET", "k", "v")).isEqualTo("OK");
            assertThat(call(server, "GET", "k")).isEqualTo("v");

            server.restart();

            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(pid);
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(server.isRunning()).isTrue();
            assertThat(call(server, "GET", "k")).isNull();
            assertThat(call(server, "DBSIZE")).isEqualTo("0");
        }
    }

    @Test
    void restartAfterStopAndAfterKill() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            server.stop();
            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.ping(SHORT)).isTrue();
            server.kill();
            server.restart();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.ping(SHORT)).isTrue();
        }
    }

    @Test
    void pauseMakesPingTimeOutAndResumeMakesItAnswer() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            call(server, "SET", "k", "v");
            server.pause();
            assertThat(server.isPaused()).isTrue();
            assertThat(server.isRunning()).isTrue();
            assertThatThrownBy(() -> RawPing.ping(server.port(), 200)).isInstanceOf(SocketTimeoutException.class);
            server.pause(); // idempotent

            server.resume();
            assertThat(server.isPaused()).isFalse();
            assertThat(RawPing.ping(server.port(), 2_000)).isEqualTo("+PONG");
            assertThat(call(server, "GET", "k")).isEqualTo("v");
            server.resume(); // no-op
        }
    }

    @Test
    void pausedServerStopsAndKills() {
        RedisServer server = RedisServer.start();
        try {
            server.pause();
            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(server.isPaused()).isFalse();
            server.restart();
            server.pause();
            long pid = server.pid();
            server.kill();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        } finally {
            server.close();
        }
    }

    @Test
    void pauseOfAStoppedServerFails() {
        try (RedisServer server = RedisServer.start()) {
            server.stop();
            assertThatThrownBy(server::pause).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not running");
            assertThatCode(server::resume).doesNotThrowAnyException();
        }
    }

    @Test
    void killEndsTheProcess() {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(server.ping(Duration.ofMillis(200))).isFalse();
            assertThat(server.pid()).isEqualTo(pid);
            server.kill(); // no-op
        }
    }

    @Test
    void stopIsGracefulAndIdempotent() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(server.log()).contains("User requested shutdown");
        assertThatCode(server::stop).doesNotThrowAnyException();
        assertThatCode(server::close).doesNotThrowAnyException();
        assertThatCode(server::close).doesNotThrowAnyException();
        assertThat(server.isRunning()).isFalse();
    }

    @Test
    void closeDeletesTheDirectoryAndThePidFile() throws IOException {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        Path pidFile = RedisBinary.cacheDir().resolve("pids")
                .resolve(pid + "." + ProcessHandle.current().pid());
        assertThat(pidFile).exists();
        java.util.Properties props = new java.util.Properties();
        try (var reader = Files.newBufferedReader(pidFile)) {
            props.load(reader);
        }
        Path dir = Path.of(props.getProperty("dir"));
        assertThat(props.getProperty("binary")).isEqualTo(server.binary().toString());
        assertThat(dir).isDirectory();
        server.close();
        assertThat(pidFile).doesNotExist();
        assertThat(dir).doesNotExist();
        assertThat(server.log()).isEmpty();
    }

    @Test
    void flushAllEmptiesTheServer() throws IOException {
        try (RedisServer server = RedisServer.start()) {
            call(server, "SET", "k", "v");
            server.flushAll();
            assertThat(call(server, "DBSIZE")).isEqualTo("0");
            server.stop();
            assertThatThrownBy(server::flushAll).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void builderRejectsManagedOptionsAndBadValues() {
        assertThatThrownBy(() -> RedisServer.builder().config("port", "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port(int)");
        assertThatThrownBy(() -> RedisServer.builder().config("--dir", "/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().config(" ", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().port(70_000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().binary(Path.of("/nonexistent/redis-server")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().startupTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void logTailKeepsTheLastLines() {
        assertThat(ServerFiles.tail("a\nb\nc\n", 2)).isEqualTo("b\nc");
        assertThat(ServerFiles.tail("a\nb\nc", 5)).isEqualTo("a\nb\nc");
        assertThat(ServerFiles.tail("", 5)).isEmpty();
    }

    static String call(RedisServer server, String... args) throws IOException {
        return Resp.call(server.host(), server.port(), SHORT, args);
    }

    private static String config(RedisServer server, String key) throws IOException {
        // CONFIG GET answers an array [key, value]; read it with a raw socket
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(2_000);
            socket.getOutputStream().write(Resp.encode("CONFIG", "GET", key));
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            assertThat(in.readLine()).isEqualTo("*2");
            in.readLine(); // $len
            assertThat(in.readLine()).isEqualTo(key);
            in.readLine(); // $len
            return in.readLine();
        }
    }
}
