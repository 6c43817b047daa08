package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.dlock.RedisConnection;
import io.dlock.RedisConnection.Node;
import io.dlock.TlsSettings;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@link RedisConnection} and the Redis URI of the same deployment make the same endpoint: the same Lettuce URIs,
 * field by field (host, port, TLS and its verification, database, master name, Sentinels, credentials, timeout), so
 * that the transports, which only see the endpoint, connect and behave the same. No Redis needed.
 */
class EndpointTest {
    private static final Duration TIMEOUT = Duration.ofMillis(1234);
    private static final char[] PASSWORD = "p@ss/w:rd".toCharArray();

    @Test
    void standalone() {
        assertSame("redis://app:p%40ss%2Fw%3Ard@10.0.0.1:6380/3",
                RedisConnection.standalone("10.0.0.1", 6380).credentials("app", PASSWORD).database(3));
        assertSame("rediss://:p%40ss%2Fw%3Ard@h:6379", RedisConnection.standalone("h", 6379)
                .credentials(null, PASSWORD).tls(true));
        assertSame("redis://h:1", RedisConnection.standalone("h", 1));
    }

    @Test
    void sentinel() {
        assertSame("redis-sentinel://app:p%40ss%2Fw%3Ard@s1:26379,s2:26380/2?sentinelMasterId=mymaster",
                RedisConnection.sentinel("mymaster", List.of(new Node("s1", 26379), new Node("s2", 26380)))
                        .credentials("app", PASSWORD).database(2));
        assertSame("rediss-sentinel://s1:26379?sentinelMasterId=m",
                RedisConnection.sentinel("m", List.of(new Node("s1", 26379))).tls(true));
    }

    @Test
    void cluster() {
        assertSame("redis-cluster://app:p%40ss%2Fw%3Ard@c1:7000,c2:7001",
                RedisConnection.cluster(List.of(new Node("c1", 7000), new Node("c2", 7001))).credentials("app",
                        PASSWORD));
        assertSame("rediss-cluster://c1:7000", RedisConnection.cluster(List.of(new Node("c1", 7000))).tls(true));
    }

    @Test
    void sentinelCredentialsGoToEverySentinelOnly() {
        RedisConnection connection = RedisConnection.sentinel("m", List.of(new Node("s1", 1), new Node("s2", 2)))
                .credentials("app", PASSWORD).sentinelCredentials("watcher", "sentinel-pw".toCharArray()).build();
        RedisURI node = Endpoint.of(LockClientConfig.builder().connection(connection).build()).node();
        assertThat(credentials(node)).isEqualTo("app/p@ss/w:rd");
        assertThat(node.getSentinels()).extracting(EndpointTest::credentials)
                .containsExactly("watcher/sentinel-pw", "watcher/sentinel-pw");
    }

    @Test
    void tlsVerificationFollowsTheTlsSettingsOnEveryNodeAndSentinel() {
        RedisConnection connection = RedisConnection.sentinel("m", List.of(new Node("s1", 1), new Node("s2", 2)))
                .tls(true).build();
        Endpoint endpoint = Endpoint.of(LockClientConfig.builder().connection(connection)
                .tls(TlsSettings.builder().verifyPeer(false).build()).build());
        assertThat(endpoint.allUris()).hasSize(3).allSatisfy(uri -> {
            assertThat(uri.isSsl()).isTrue();
            assertThat(uri.getVerifyMode()).isEqualTo(io.lettuce.core.SslVerifyMode.NONE);
        });
    }

    @Test
    void tlsSettingsWithAPlainConnectionAreRefusedEitherWay() {
        TlsSettings tls = TlsSettings.builder().verifyPeer(false).build();
        for (LockClientConfig.Builder config : List.of(
                LockClientConfig.builder().redisUri("redis://h:1"),
                LockClientConfig.builder().connection(RedisConnection.standalone("h", 1).build()))) {
            assertThatThrownBy(() -> Endpoint.of(config.tls(tls).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not TLS");
        }
    }

    @Test
    void theDescriptionAndScrubbedMessagesHoldNoPassword() {
        RedisConnection connection = RedisConnection.sentinel("m", List.of(new Node("s1", 1)))
                .credentials("app", PASSWORD).sentinelCredentials(null, "sentinel-pw".toCharArray()).build();
        Endpoint endpoint = Endpoint.of(LockClientConfig.builder().connection(connection).build());
        assertThat(endpoint.description()).isEqualTo(connection.toString()).doesNotContain("p@ss", "sentinel-pw");
        assertThat(endpoint.scrub("AUTH p@ss/w:rd failed; sentinel-pw too")).isEqualTo("AUTH *** failed; *** too");

        Endpoint fromUri = Endpoint.of(LockClientConfig.builder().redisUri("redis://app:secret@h:1").build());
        assertThat(fromUri.description()).isEqualTo("redis://***@h:1");
        assertThat(fromUri.scrub("bad secret")).isEqualTo("bad ***");
    }

    /** The endpoints of {@code uri} and {@code connection} are the same, field by field. */
    private static void assertSame(String uri, RedisConnection.Builder connection) {
        String fromUri = describe(Endpoint.of(LockClientConfig.builder().redisUri(uri)
                .commandTimeout(TIMEOUT).build()));
        String fromConnection = describe(Endpoint.of(LockClientConfig.builder().connection(connection.build())
                .commandTimeout(TIMEOUT).build()));
        assertThat(fromConnection).as(uri).isEqualTo(fromUri).contains("timeout=" + TIMEOUT);
    }

    private static String describe(Endpoint endpoint) {
        return (endpoint.isCluster() ? "cluster " : "node ") + endpoint.seeds().stream().map(EndpointTest::describe)
                .collect(Collectors.joining("; "));
    }

    private static String describe(RedisURI uri) {
        return "host=" + uri.getHost() + " port=" + uri.getPort() + " ssl=" + uri.isSsl() + " verify="
                + uri.getVerifyMode() + " startTls=" + uri.isStartTls() + " database=" + uri.getDatabase()
                + " master=" + uri.getSentinelMasterId() + " timeout=" + uri.getTimeout() + " credentials="
                + credentials(uri) + " sentinels=" + uri.getSentinels().stream().map(EndpointTest::describe).toList();
    }

    private static String credentials(RedisURI uri) {
        if (uri.getCredentialsProvider() == null) {
            return "none";
        }
        RedisCredentials c = uri.getCredentialsProvider().resolveCredentials().block();
        return c == null || !c.hasPassword() ? "none" : c.getUsername() + "/" + new String(c.getPassword());
    }
}
