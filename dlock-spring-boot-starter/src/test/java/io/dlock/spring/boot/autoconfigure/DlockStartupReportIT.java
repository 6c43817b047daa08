package io.dlock.spring.boot.autoconfigure;

import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The report a real {@code SpringApplication} prints when dlock's settings stop it: Boot's failure analyzers re-read
 * the named property from the environment, so a report about a property that holds a secret must never show its value
 * (issue 20, point 7).
 */
@ExtendWith({RedisExtension.class, OutputCaptureExtension.class})
class DlockStartupReportIT {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @Test
    void aBadRedisUriIsReportedWithoutItsPassword(CapturedOutput output) {
        String report = failedStart(output, "dlock.redis-uri=bogus://admin:s3cr3t-pw@127.0.0.1:6379");
        assertThat(report).contains("APPLICATION FAILED TO START").contains("dlock.redis-uri")
                .contains("(not shown: it may hold a password)").doesNotContain("s3cr3t-pw");
    }

    @Test
    void aRedisUriTheClientRefusesIsReportedWithoutItsPassword(CapturedOutput output) {
        String report = failedStart(output, "dlock.redis-uri=redis://admin:s3cr3t-pw@127.0.0.1:6379/99x");
        assertThat(report).contains("APPLICATION FAILED TO START").contains("dlock.redis-uri")
                .doesNotContain("s3cr3t-pw");
    }

    @Test
    void aSentinelSetUpDlockRefusesIsReportedWithoutItsPasswords(CapturedOutput output) {
        String report = failedStart(output, "spring.data.redis.sentinel.master=mymaster",
                "spring.data.redis.sentinel.nodes=127.0.0.1:1", "spring.data.redis.sentinel.password=s3cr3t-sentinel",
                "spring.data.redis.password=s3cr3t-data", "dlock.tls.verify-peer=false",
                "dlock.tls.key-store-password=s3cr3t-store");
        assertThat(report).contains("APPLICATION FAILED TO START").contains("the connection is not TLS")
                .doesNotContain("s3cr3t");
    }

    @Test
    void unreachableSentinelsAreReportedWithoutTheirPasswords(CapturedOutput output) {
        String report = failedStart(output, "spring.data.redis.sentinel.master=mymaster",
                "spring.data.redis.sentinel.nodes=127.0.0.1:1", "spring.data.redis.sentinel.password=s3cr3t-sentinel",
                "spring.data.redis.password=s3cr3t-data", "dlock.command-timeout=300ms");
        assertThat(report).contains("127.0.0.1:1").doesNotContain("s3cr3t");
    }

    /** Any refused property named for a secret, such as Spring Data Redis's Sentinel password, is shown without it. */
    @Test
    void aRefusedPasswordPropertyIsReportedWithoutItsValue(CapturedOutput output) {
        String report = failedStart(RefusesTheSentinelPassword.class, output,
                "spring.data.redis.sentinel.password=s3cr3t-sentinel", "dlock.redis-uri=redis://127.0.0.1:1");
        assertThat(report).contains("APPLICATION FAILED TO START")
                .contains("for configuration property 'spring.data.redis.sentinel.password'")
                .contains("\"spring.data.redis.sentinel.password\" from property source")
                .contains("too short").doesNotContain("s3cr3t");
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class RefusesTheSentinelPassword {
        RefusesTheSentinelPassword() {
            throw new org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException(
                    "spring.data.redis.sentinel.password", "(not shown)", "too short");
        }
    }

    @Test
    void aBadSettingBesideAUriWithAPasswordIsReportedWithoutIt(RedisServer redis, CapturedOutput output) {
        String uri = "redis://default:s3cr3t-pw@127.0.0.1:" + redis.port();
        String report = failedStart(output, "dlock.redis-uri=" + uri, "dlock.watchdog-timeout=3s",
                "dlock.command-timeout=2s", "dlock.tls.trust-store-password=s3cr3t-store");
        assertThat(report).contains("APPLICATION FAILED TO START").contains("dlock.command-timeout")
                .doesNotContain("s3cr3t");
    }

    /** @return what the failed start printed */
    private static String failedStart(CapturedOutput output, String... properties) {
        return failedStart(App.class, output, properties);
    }

    private static String failedStart(Class<?> app, CapturedOutput output, String... properties) {
        int before = output.length();
        assertThatThrownBy(() -> new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties(properties).properties("spring.main.banner-mode=off").run().close())
                .isInstanceOf(Exception.class);
        return output.toString().substring(before);
    }
}
