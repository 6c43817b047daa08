package io.dlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;

import io.dlock.redisprocess.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionIT {

    private static RedisServer first;
    private static int port;

    @BeforeAll
    static void serverIsAvailableBeforeAll(RedisServer server) {
        first = server;
        port = server.port();
        assertThat(server.isRunning()).isTrue();
    }

    @AfterAll
    static void sameServerUntilTheEnd(RedisServer server) {
        assertThat(server).isSameAs(first);
    }

    @Test
    @Order(1)
    void startsEmptyAndWrites(RedisServer server) throws IOException {
        assertThat(server).isSameAs(first);
        assertThat(dbSize(server)).isZero();
        call(server, "SET", "left-over", "1");
        assertThat(dbSize(server)).isEqualTo(1);
    }

    @Test
    @Order(2)
    void startsEmptyAgainAndKillsTheServer(RedisServer server) throws IOException {
        assertThat(server).isSameAs(first);
        assertThat(dbSize(server)).isZero();
        call(server, "SET", "left-over", "2");
        server.kill();
    }

    @Test
    @Order(3)
    void getsTheServerRestartedOnTheSamePortAndPausesIt(RedisServer server) throws IOException {
        assertThat(server).isSameAs(first);
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(port);
        assertThat(dbSize(server)).isZero();
        call(server, "SET", "left-over", "3");
        server.pause();
    }

    @Test
    @Order(4)
    void getsTheServerResumedAndStopsIt(RedisServer server) throws IOException {
        assertThat(server.isPaused()).isFalse();
        assertThat(server.ping(Duration.ofSeconds(1))).isTrue();
        assertThat(dbSize(server)).isZero();
        server.stop();
    }

    @Test
    @Order(5)
    void getsTheServerStartedAgainAfterStop(RedisServer server) throws IOException {
        assertThat(server.isRunning()).isTrue();
        assertThat(dbSize(server)).isZero();
    }

    @Nested
    class NestedTests {

        @Test
        void sharesTheEnclosingServer(RedisServer server) throws IOException {
            assertThat(server).isSameAs(first);
            assertThat(dbSize(server)).isZero();
        }
    }

    static long dbSize(RedisServer server) throws IOException {
        return Long.parseLong(call(server, "DBSIZE"));
    }

    private static String call(RedisServer server, String... args) {
        return (String) server.command(Duration.ofSeconds(2), args);
    }
}
