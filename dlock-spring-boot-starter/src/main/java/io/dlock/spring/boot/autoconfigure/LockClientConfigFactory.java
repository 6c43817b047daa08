package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import io.dlock.LockClientConfig;
import io.dlock.internal.Redaction;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * Turns {@link DlockProperties} and {@link DlockConnectionDetails} into a {@link LockClientConfig}. Every value is
 * checked by the builder as it is set; one it refuses becomes an {@link InvalidConfigurationPropertyValueException}
 * naming the property (passwords are never shown, a URI only without its user info), which Spring Boot reports as
 * the reason start-up failed.
 */
final class LockClientConfigFactory {
    private LockClientConfigFactory() {
    }

    static LockClientConfig create(DlockProperties p, DlockConnectionDetails connection,
                                   List<LockClientConfigCustomizer> customizers) {
        LockClientConfig.Builder b = LockClientConfig.builder();
        String uri = connection.getRedisUri();
        set("dlock.redis-uri".equals(connection.getOrigin()) ? "dlock.redis-uri" : connection.getOrigin(),
                Redaction.uri(uri), () -> b.redisUri(uri));
        set("dlock.watchdog-timeout", p.getWatchdogTimeout(), () -> b.watchdogTimeout(p.getWatchdogTimeout()));
        set("dlock.fair-lock-wait-timeout", p.getFairLockWaitTimeout(),
                () -> b.fairLockWaitTimeout(p.getFairLockWaitTimeout()));
        if (p.getCommandTimeout() != null) {
            set("dlock.command-timeout", p.getCommandTimeout(), () -> b.commandTimeout(p.getCommandTimeout()));
        }
        set("dlock.spin-wait", p.getSpinWait(), () -> b.spinWait(p.getSpinWait()));
        set("dlock.local-handoffs", p.getLocalHandoffs(), () -> b.localHandoffs(p.getLocalHandoffs()));
        set("dlock.probe-lock-name", p.getProbeLockName(), () -> b.probeLockName(p.getProbeLockName()));
        DlockProperties.SyncReplicas sync = p.getSyncReplicas();
        set("dlock.sync-replicas.replicas", sync.getReplicas(), () -> b.syncReplicas(sync.getReplicas(),
                Duration.ofSeconds(1)));
        set("dlock.sync-replicas.timeout", sync.getTimeout(), () -> b.syncReplicas(sync.getReplicas(),
                sync.getTimeout()));
        applyTls(b, p.getTls(), connection);
        for (LockClientConfigCustomizer customizer : customizers) {
            customizer.customize(b);
        }
        try {
            return b.build();
        } catch (InvalidSettingException e) {
            // build() refuses combinations only: the command timeout against the watchdog, or two sources of trust or
            // of the client certificate (a customizer's own settings are its own to explain)
            if ("commandTimeout".equals(e.setting())) {
                throw new InvalidConfigurationPropertyValueException("dlock.command-timeout", p.getCommandTimeout(),
                        e.getMessage() + " (dlock.watchdog-timeout)");
            }
            throw new InvalidConfigurationPropertyValueException("dlock.tls", "(TLS options)", e.getMessage());
        }
    }

    private static void applyTls(LockClientConfig.Builder b, DlockProperties.Tls tls, DlockConnectionDetails connection) {
        SslBundle bundle = connection.getSslBundle();
        if (bundle != null) {
            if (hasText(tls.getTrustStore()) || hasText(tls.getTrustedCertificates()) || hasText(tls.getKeyStore())) {
                throw new InvalidConfigurationPropertyValueException("dlock.tls.bundle", tls.getBundle(),
                        "an SSL bundle and TLS files (dlock.tls.trust-store, trusted-certificates, key-store) are "
                                + "both given; give one");
            }
            applyBundle(b, bundle, connection.getOrigin());
        }
        char[] trustPassword = chars(tls.getTrustStorePassword());
        char[] keyPassword = chars(tls.getKeyStorePassword());
        if (hasText(tls.getTrustStore())) {
            set("dlock.tls.trust-store", tls.getTrustStore(),
                    () -> b.trustStore(Path.of(tls.getTrustStore()), trustPassword));
        }
        if (hasText(tls.getTrustedCertificates())) {
            set("dlock.tls.trusted-certificates", tls.getTrustedCertificates(),
                    () -> b.trustedCertificates(Path.of(tls.getTrustedCertificates())));
        }
        if (hasText(tls.getKeyStore())) {
            set("dlock.tls.key-store", tls.getKeyStore(), () -> b.keyStore(Path.of(tls.getKeyStore()), keyPassword));
        }
        b.verifyPeer(tls.isVerifyPeer());
    }

    /** Takes the bundle's trust managers and key managers as they are (its stores may be in memory only). */
    private static void applyBundle(LockClientConfig.Builder b, SslBundle bundle, String origin) {
        SslOptions options = bundle.getOptions();
        if (options != null && options.isSpecified()) {
            throw new InvalidConfigurationPropertyValueException(origin, "(SSL bundle)",
                    "the SSL bundle restricts ciphers or protocols (spring.ssl.bundle.*.options), which dlock does not "
                            + "apply; remove them or connect with dlock.redis-uri and dlock.tls.*");
        }
        SslStoreBundle stores = bundle.getStores();
        SslManagerBundle managers = bundle.getManagers();
        if (stores != null && stores.getTrustStore() != null) {
            b.trustManagerFactory(managers.getTrustManagerFactory());
        }
        if (stores != null && stores.getKeyStore() != null) {
            b.keyManagerFactory(managers.getKeyManagerFactory());
        }
    }

    private static void set(String property, Object shownValue, Runnable setter) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidConfigurationPropertyValueException(property, shownValue, e.getMessage());
        }
    }

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }
}
