package io.dlock.spring.boot.autoconfigure;

import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad settings fail start-up with a message that names the property and never shows a password. */
@ExtendWith(RedisExtension.class)
class DlockStartupFailureIT {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, DlockAutoConfiguration.class));

    @Test
    void aDurationTooShort(RedisServer redis) {
        assertFailure("The watchdog timeout", "dlock.watchdog-timeout", "must be at least 30 ms",
                "dlock.redis-uri=" + redis.uri(), "dlock.watchdog-timeout=10ms");
    }

    @Test
    void aValueThatIsNoDuration(RedisServer redis) {
        assertFailure("not a duration", "dlock.command-timeout", "soon",
                "dlock.redis-uri=" + redis.uri(), "dlock.command-timeout=soon");
    }

    @Test
    void aCommandTimeoutOfAThirdOfTheWatchdogOrMore(RedisServer redis) {
        assertFailure("a third of the watchdog", "dlock.command-timeout", "less than a third of watchdogTimeout",
                "dlock.redis-uri=" + redis.uri(), "dlock.watchdog-timeout=3s", "dlock.command-timeout=1s");
    }

    @Test
    void aSpinWaitOutOfRangeAndANegativeCount(RedisServer redis) {
        assertFailure("spin wait", "dlock.tuning.spin-wait", "between 0 and 10 ms",
                "dlock.redis-uri=" + redis.uri(), "dlock.tuning.spin-wait=20ms");
        assertFailure("negative hand-offs", "dlock.tuning.local-handoffs", "negative",
                "dlock.redis-uri=" + redis.uri(), "dlock.tuning.local-handoffs=-1");
        assertFailure("blank probe", "dlock.tuning.probe-lock-name", "tuning.probeLockName is blank",
                "dlock.redis-uri=" + redis.uri(), "dlock.tuning.probe-lock-name= ");
        assertFailure("negative replicas", "dlock.sync-replicas.replicas", "negative",
                "dlock.redis-uri=" + redis.uri(), "dlock.sync-replicas.replicas=-2");
    }

    @Test
    void aBadUriNeverShowsItsPassword() {
        String trace = assertFailure("bad URI", "dlock.redis-uri", "redis",
                "dlock.redis-uri=bogus://admin:s3cr3t-pw@127.0.0.1:6379");
        assertThat(trace).doesNotContain("s3cr3t-pw");
    }

    @Test
    void anUnreachableRedisNeverShowsItsPassword() {
        String trace = assertFailure("unreachable", "ConnectionFailedException", "127.0.0.1",
                "dlock.redis-uri=redis://admin:s3cr3t-pw@127.0.0.1:1", "dlock.command-timeout=300ms");
        assertThat(trace).doesNotContain("s3cr3t-pw");
    }

    @Test
    void anUnknownSslBundle(RedisServer redis) {
        assertFailure("no bundle", "dlock.tls.bundle", "no SSL bundle",
                "dlock.redis-uri=" + redis.uri(), "dlock.tls.bundle=nope");
    }

    @Test
    void tlsFilesWithAPlainUri(RedisServer redis) {
        assertFailure("TLS with redis://", "dlock.redis-uri", "the connection is not TLS",
                "dlock.redis-uri=" + redis.uri(), "dlock.tls.verify-peer=false");
        assertFailure("TLS with plain Spring Data Redis", "spring.data.redis.*", "the connection is not TLS",
                "spring.data.redis.port=" + redis.port(), "dlock.tls.verify-peer=false");
    }

    @Test
    void aMissingTrustStoreFile(RedisServer redis) {
        assertFailure("no such file", "dlock.tls.trust-store", "not a readable file",
                "dlock.redis-uri=" + redis.uri(), "dlock.tls.trust-store=/nonexistent/trust.p12");
    }

    @Test
    void twoSourcesOfTrust(RedisServer redis, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("ca.pem"), "x");
        assertFailure("two sources of trust", "dlock.tls.trust-store", "give one",
                "dlock.redis-uri=" + redis.uri(), "dlock.tls.trust-store=" + file,
                "dlock.tls.trusted-certificates=" + file);
    }

    @Test
    void aBadPortOfSpringDataRedis() {
        assertFailure("port 0", "spring.data.redis.port", "connection.port must be between 1 and 65535",
                "spring.data.redis.port=0");
    }

    @Test
    void aMasterReplicaSetUpOfSpringDataRedis() {
        assertFailure("master/replica", "spring.data.redis.masterreplica.nodes", "master/replica",
                "spring.data.redis.masterreplica.nodes=127.0.0.1:1,127.0.0.1:2", "spring.data.redis.password=s3cr3t-pw");
    }

    @Test
    void unreachableSentinelsNeverShowTheirPasswordOrTheDataPassword() {
        String trace = assertFailure("sentinels down", "ConnectionFailedException", "master mymaster of Sentinels 127.0.0.1:1",
                "spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=127.0.0.1:1",
                "spring.data.redis.sentinel.password=s3cr3t-sentinel", "spring.data.redis.password=s3cr3t-data",
                "dlock.command-timeout=300ms");
        assertThat(trace).doesNotContain("s3cr3t");
    }

    /** @return the failure's whole stack trace, which must name {@code property} and say {@code reason} */
    private String assertFailure(String what, String property, String reason, String... properties) {
        StringWriter trace = new StringWriter();
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).as(what).hasFailed();
            context.getStartupFailure().printStackTrace(new PrintWriter(trace));
        });
        assertThat(trace.toString()).as(what).contains(property).contains(reason);
        return trace.toString();
    }
}
