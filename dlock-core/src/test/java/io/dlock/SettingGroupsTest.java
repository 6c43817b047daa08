package io.dlock;

import io.dlock.RedisConnection.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The groups of {@link LockClientConfig}: {@link TlsSettings}, {@link TuningSettings} and where Redis is (a URI or a
 * {@link RedisConnection}). Refusals name the setting by its group path; {@code toString} never shows a password.
 */
class SettingGroupsTest {
    private static final char[] SECRET = "s3cr3t-pw".toCharArray();

    @Test
    void tlsSettingsAreCarriedCopiedAndShownWithoutPasswords(@TempDir Path dir) throws Exception {
        Path store = Files.writeString(dir.resolve("trust.p12"), "x");
        char[] password = SECRET.clone();
        TlsSettings tls = TlsSettings.builder().trustStore(store, password).verifyPeer(false).build();
        password[0] = 'X';
        assertThat(tls.trustStorePassword()).as("copied in").isEqualTo(SECRET);
        tls.trustStorePassword()[1] = 'Y';
        assertThat(tls.trustStorePassword()).as("copied out").isEqualTo(SECRET);
        assertThat(tls.trustStore()).contains(store);
        assertThat(tls.isDefault()).isFalse();
        assertThat(TlsSettings.defaults().isDefault()).isTrue();

        LockClientConfig config = LockClientConfig.builder().redisUri("rediss://h:1").tls(tls).build();
        assertThat(config.tls()).isSameAs(tls);
        assertThat(config.toBuilder().build().tls().trustStorePassword()).isEqualTo(SECRET);
        assertThat(config.toString()).contains("trustStore=" + store).contains("verification=NONE")
                .doesNotContain("s3cr3t");
        assertThat(tls.toBuilder().verifyPeer(true).build().trustStore()).contains(store);
    }

    @Test
    void theApplicationNameIsCarriedShownAndChecked() {
        assertThat(LockClientConfig.builder().build().applicationName()).isEmpty();
        LockClientConfig config = LockClientConfig.builder().applicationName(" billing ").build();
        assertThat(config.applicationName()).isEqualTo("billing");
        assertThat(config.toBuilder().build().applicationName()).isEqualTo("billing");
        assertThat(config.toString()).contains("applicationName=billing");
        assertSetting("applicationName", () -> LockClientConfig.builder().applicationName(" "));
        assertSetting("applicationName", () -> LockClientConfig.builder().applicationName("x".repeat(129)));
        assertThat(new ClientIdentity("id", "h", 7, "").toString()).isEqualTo("h:7 (id)");
        assertThat(new ClientIdentity("id", "h", 7, "app").toString()).isEqualTo("app@h:7 (id)");
    }

    @Test
    void verificationModes() {
        assertThat(TlsSettings.defaults().verification()).isEqualTo(TlsSettings.Verification.FULL);
        TlsSettings ca = TlsSettings.builder().verification(TlsSettings.Verification.CA).build();
        assertThat(ca.verifyPeer()).isTrue();
        assertThat(ca.isDefault()).as("a plain-text connection must refuse it").isFalse();
        assertThat(ca.toBuilder().build().verification()).isEqualTo(TlsSettings.Verification.CA);
        assertThat(TlsSettings.builder().verifyPeer(false).build().verification())
                .isEqualTo(TlsSettings.Verification.NONE);
        assertThat(ca.toBuilder().verifyPeer(true).build().verification()).isEqualTo(TlsSettings.Verification.FULL);
    }

    @Test
    void tlsRefusalsNameTheGroupedSetting(@TempDir Path dir) throws Exception {
        assertSetting("tls.trustStore", () -> TlsSettings.builder().trustStore(dir.resolve("none.p12"), null));
        assertSetting("tls.trustedCertificates", () -> TlsSettings.builder().trustedCertificates(dir));
        assertSetting("tls.keyStore", () -> TlsSettings.builder().keyStore(dir, null));

        Path pem = Files.writeString(dir.resolve("ca.pem"), "x");
        TrustManagerFactory managers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        managers.init((KeyStore) null);
        InvalidSettingException twoTrusts = assertSetting("tls.trustStore", () -> TlsSettings.builder()
                .trustedCertificates(pem).trustManagerFactory(managers).build());
        assertThat(twoTrusts).hasMessageContaining("give one");
        assertThat(TlsSettings.builder().trustManagerFactory(managers).build().toString())
                .contains("trustManagerFactory=set");
    }

    @Test
    void tuningRefusalsNameTheGroupedSetting() {
        assertSetting("tuning.spinWait", () -> TuningSettings.builder().spinWait(java.time.Duration.ofMillis(11)));
        assertSetting("tuning.localHandoffs", () -> TuningSettings.builder().localHandoffs(-1));
        assertSetting("tuning.probeLockName", () -> TuningSettings.builder().probeLockName(""));
    }

    @Test
    void connectionsOfEachKind() {
        RedisConnection standalone = RedisConnection.standalone("10.0.0.1", 6380).database(2).build();
        assertThat(standalone.kind()).isEqualTo(RedisConnection.Kind.STANDALONE);
        assertThat(standalone.nodes()).containsExactly(new Node("10.0.0.1", 6380));
        assertThat(standalone.database()).isEqualTo(2);
        assertThat(standalone.masterName()).isEmpty();
        assertThat(standalone.password()).isNull();
        assertThat(standalone.tls()).isFalse();
        assertThat(standalone).hasToString("standalone 10.0.0.1:6380 (database 2)");

        RedisConnection sentinel = RedisConnection.sentinel("mymaster", List.of(new Node("s1", 26379),
                new Node("::1", 26380))).tls(true).build();
        assertThat(sentinel.kind()).isEqualTo(RedisConnection.Kind.SENTINEL);
        assertThat(sentinel.masterName()).contains("mymaster");
        assertThat(sentinel).hasToString("master mymaster of Sentinels s1:26379,[::1]:26380 (TLS)");

        RedisConnection cluster = RedisConnection.cluster(List.of(new Node("c1", 7000))).build();
        assertThat(cluster.kind()).isEqualTo(RedisConnection.Kind.CLUSTER);
        assertThat(cluster).hasToString("cluster seeds c1:7000");
        assertThat(cluster.toBuilder().tls(true).build().tls()).isTrue();
    }

    @Test
    void connectionRefusalsNameTheGroupedSetting() {
        assertSetting("connection.host", () -> RedisConnection.standalone(" ", 6379));
        assertSetting("connection.port", () -> RedisConnection.standalone("h", 0));
        assertSetting("connection.port", () -> new Node("h", 65536));
        assertSetting("connection.nodes", () -> RedisConnection.cluster(List.of()));
        assertSetting("connection.masterName", () -> RedisConnection.sentinel("", List.of(new Node("s", 1))));
        assertSetting("connection.database", () -> RedisConnection.standalone("h", 1).database(-1));
        assertSetting("connection.database", () -> RedisConnection.cluster(List.of(new Node("c", 1))).database(1));
        assertSetting("connection.username", () -> RedisConnection.standalone("h", 1).credentials(" ", SECRET));
        assertSetting("connection.sentinelCredentials",
                () -> RedisConnection.standalone("h", 1).sentinelCredentials(null, SECRET));
        assertThatThrownBy(() -> RedisConnection.standalone("h", 1).credentials("u", null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("connection.password");
    }

    @Test
    void credentialsAreCopiedAndNeverShown() {
        char[] password = SECRET.clone();
        RedisConnection connection = RedisConnection.sentinel("m", List.of(new Node("s", 1)))
                .credentials("app-user", password).sentinelCredentials("watcher", "sentinel-pw".toCharArray())
                .build();
        password[0] = 'X';
        assertThat(connection.password()).isEqualTo(SECRET);
        assertThat(connection.username()).contains("app-user");
        assertThat(connection.sentinelUsername()).contains("watcher");
        assertThat(connection.sentinelPassword()).isEqualTo("sentinel-pw".toCharArray());
        assertThat(connection.toString()).isEqualTo("master m of Sentinels s:1 (credentials ***, "
                + "Sentinel credentials ***)");
        LockClientConfig config = LockClientConfig.builder().connection(connection).build();
        for (String shown : List.of(config.toString(), config.redisDescription(),
                config.toBuilder().build().toString())) {
            assertThat(shown).contains("master m of Sentinels s:1")
                    .doesNotContain("s3cr3t", "sentinel-pw", "app-user", "watcher");
        }
    }

    @Test
    void aUriOrAConnectionNeverBoth() {
        RedisConnection connection = RedisConnection.standalone("h", 6379).build();
        LockClientConfig structured = LockClientConfig.builder().connection(connection).build();
        assertThat(structured.connection()).containsSame(connection);
        assertThat(structured.redisUri()).isEmpty();
        assertThat(structured.redisDescription()).isEqualTo("standalone h:6379");

        InvalidSettingException both = assertSetting("connection", () -> LockClientConfig.builder()
                .redisUri("redis://user:" + new String(SECRET) + "@h:1").connection(connection).build());
        assertThat(both).hasMessageContaining("redisUri and connection are both set").hasMessageNotContaining("s3cr3t");
        assertSetting("connection", () -> structured.toBuilder().redisUri("redis://h:1").build());
        // a config that named no place keeps the default URI only until one is given
        LockClientConfig copied = LockClientConfig.builder().build().toBuilder().connection(connection).build();
        assertThat(copied.connection()).containsSame(connection);
        assertThat(LockClientConfig.builder().redisUri("redis://a:1").build().toBuilder().redisUri("redis://b:2")
                .build().redisUri()).contains("redis://b:2");
        assertSetting("redisUri", () -> LockClientConfig.builder().redisUri(" "));
    }

    private static InvalidSettingException assertSetting(String setting, Runnable action) {
        InvalidSettingException e = catchThrowableOfType(action::run, InvalidSettingException.class);
        assertThat(e).as("refused: " + setting).isNotNull();
        assertThat(e.setting()).isEqualTo(setting);
        assertThat(e.getMessage()).contains(setting);
        return e;
    }
}
