package io.dlock.internal.transport;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis URIs parsed into endpoints: the cluster form into seed nodes; errors without credentials. No Redis needed. */
class RedisUriParserTest {

    @Test
    void everyNodeBecomesASeedWithTheSharedSettings() {
        List<RedisURI> seeds = RedisUriParser.seeds("redis-cluster://user:secret@10.0.0.1:7000,10.0.0.2,h3:7002"
                + "/?clientName=x");
        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2", "h3");
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, RedisURI.DEFAULT_REDIS_PORT, 7002);
        assertThat(seeds).allSatisfy(seed -> {
            RedisCredentials credentials = seed.getCredentialsProvider().resolveCredentials().block();
            assertThat(credentials.getUsername()).isEqualTo("user");
            assertThat(new String(credentials.getPassword())).isEqualTo("secret");
            assertThat(seed.isSsl()).isFalse();
            assertThat(seed.getClientName()).isEqualTo("x");
        });
    }

    @Test
    void tlsFormUsesTls() {
        assertThat(RedisUriParser.seeds("rediss-cluster://a:1,b:2")).allMatch(RedisURI::isSsl);
        assertThat(RedisUriParser.endpoint("REDISS-CLUSTER://a:1").isCluster()).isTrue();
    }

    @Test
    void aUriWithoutNodesIsRejectedWithoutItsPassword() {
        assertThatThrownBy(() -> RedisUriParser.seeds("redis-cluster://u:pw@,"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no cluster node")
                .hasMessageNotContaining("pw");
    }

    @Test
    void anUnparsableNodeUriIsRejectedWithoutItsPasswordOrACause() {
        assertThatThrownBy(() -> RedisUriParser.endpoint("bogus://admin:s3cr3t@host:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redisUri is not a valid Redis URI: bogus://***@host:1")
                .hasMessageNotContaining("s3cr3t")
                .hasNoCause();
    }
}
