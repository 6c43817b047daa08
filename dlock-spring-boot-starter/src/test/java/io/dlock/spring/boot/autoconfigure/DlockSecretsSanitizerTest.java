package io.dlock.spring.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SanitizableData;

import static org.assertj.core.api.Assertions.assertThat;

/** Which keys and values {@link DlockSecretsSanitizer} hides, however a property source spells the key. */
class DlockSecretsSanitizerTest {
    private final DlockSecretsSanitizer sanitizer = new DlockSecretsSanitizer();

    private Object shown(String key, Object value) {
        return sanitizer.apply(new SanitizableData(null, key, value)).getValue();
    }

    @Test
    void passwordsOfDlockAreHiddenInEverySpelling() {
        for (String key : new String[] {"dlock.tls.key-store-password", "dlock.tls.trust-store-password",
                "dlock.tls.keyStorePassword", "DLOCK_TLS_TRUST_STORE_PASSWORD", "dlock.tls.trust_store_password"}) {
            assertThat(shown(key, "s3cr3t")).as(key).isEqualTo(SanitizableData.SANITIZED_VALUE);
        }
        assertThat(shown("dlock.tls.key-store", "/etc/app/client.p12")).isEqualTo("/etc/app/client.p12");
        assertThat(shown("other.password", "s3cr3t")).as("not dlock's: left to other functions").isEqualTo("s3cr3t");
    }

    @Test
    void theUriKeepsItsUserAndHostButNotItsPassword() {
        assertThat(shown("dlock.redis-uri", "redis://app:s3cr3t@10.0.0.1:6379/2"))
                .isEqualTo("redis://app:******@10.0.0.1:6379/2");
        assertThat(shown("dlock.redisUri", "rediss://:s3cr3t@h:6380")).isEqualTo("rediss://:******@h:6380");
        assertThat(shown("DLOCK_REDIS_URI", "redis://s3cr3t@h")).as("a lone user info is Redis's password")
                .isEqualTo("redis://******@h");
        assertThat(shown("dlock.redis-uri", "redis-sentinel://a:p@ss@s1:26379,s2:26379/0#mymaster"))
                .isEqualTo("redis-sentinel://a:******@s1:26379,s2:26379/0#mymaster");
        assertThat(shown("dlock.redis-uri", "redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
    }
}
