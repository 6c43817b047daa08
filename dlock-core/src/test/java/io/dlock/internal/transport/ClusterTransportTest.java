package io.dlock.internal.transport;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cluster form of a Redis URI, parsed into seed nodes. No Redis needed. */
class ClusterTransportTest {
    private static final Duration TIMEOUT = Duration.ofMillis(1234);

    @Test
    void everyNodeBecomesASeedWithTheSharedSettings() {
        List<RedisURI> seeds = ClusterTransport.seeds("redis-cluster://user:secret@10.0.0.1:7000,10.0.0.2,h3:7002"
                + "/?clientName=x", TIMEOUT);
        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2", "h3");
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, RedisURI.DEFAULT_REDIS_PORT, 7002);
        assertThat(seeds).allSatisfy(seed -> {
            RedisCredentials credentials = seed.getCredentialsProvider().resolveCredentials().block();
            assertThat(credentials.getUsername()).isEqualTo("user");
            assertThat(new String(credentials.getPassword())).isEqualTo("secret");
            assertThat(seed.isSsl()).isFalse();
            assertThat(seed.getTimeout()).isEqualTo(TIMEOUT);
            assertThat(seed.getClientName()).isEqualTo("x");
        });
    }

    @Test
    void tlsFormUsesTls() {
        assertThat(ClusterTransport.seeds("rediss-cluster://a:1,b:2", TIMEOUT)).allMatch(RedisURI::isSsl);
    }

    @Test
    void aUriWithoutNodesIsRejectedWithoutItsPassword() {
        assertThatThrownBy(() -> ClusterTransport.seeds("redis-cluster://u:pw@,", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no cluster node")
                .hasMessageNotContaining("pw");
    }
}
