package io.dlock.spring.boot.autoconfigure;

import io.dlock.InvalidSettingException;
import io.dlock.TlsSettings;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;

import java.nio.file.Path;

import static io.dlock.spring.boot.autoconfigure.PropertyErrors.set;

/**
 * Turns {@code dlock.tls.*} and the connection's SSL bundle into {@link TlsSettings}: the bundle's trust and key
 * managers as they are (its stores may be in memory only), or the trust store, trusted certificates and key store
 * files; never both. Refused values fail start-up naming their {@code dlock.tls.*} property.
 */
final class TlsSettingsFactory {
    private TlsSettingsFactory() {
    }

    static TlsSettings create(DlockProperties.Tls tls, DlockConnectionDetails connection) {
        TlsSettings.Builder b = TlsSettings.builder();
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
        if (tls.getVerify() == null) {
            b.verifyPeer(tls.isVerifyPeer());
        } else if (!tls.isVerifyPeer() && tls.getVerify() != TlsSettings.Verification.NONE) {
            throw new InvalidConfigurationPropertyValueException("dlock.tls.verify", tls.getVerify(),
                    "dlock.tls.verify-peer=false says verify nothing; give dlock.tls.verify alone");
        } else {
            b.verification(tls.getVerify());
        }
        try {
            return b.build();
        } catch (InvalidSettingException e) {
            // two sources of trust, or of the client certificate
            throw PropertyErrors.of(e, "(TLS settings)");
        }
    }

    private static void applyBundle(TlsSettings.Builder b, SslBundle bundle, String origin) {
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

    private static boolean hasText(String s) {
        return s != null && !s.isBlank();
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }
}
