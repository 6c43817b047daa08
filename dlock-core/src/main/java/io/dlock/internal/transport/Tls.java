package io.dlock.internal.transport;

import io.dlock.TlsSettings;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;

/** Maps {@link TlsSettings} onto Lettuce's {@link SslOptions} and {@link RedisURI}s. */
final class Tls {
    private Tls() {
    }

    /** @return the options of the trust store / trusted certificates / trust managers and key store / key managers */
    static SslOptions options(TlsSettings tls) {
        SslOptions.Builder builder = SslOptions.builder().jdkSslProvider();
        tls.trustStore().ifPresent(file ->
                builder.truststore(SslOptions.Resource.from(file.toFile()), tls.trustStorePassword()));
        tls.trustedCertificates().ifPresent(file -> builder.trustManager(file.toFile()));
        tls.keyStore().ifPresent(file -> builder.keystore(file.toFile(), tls.keyStorePassword()));
        tls.trustManagerFactory().ifPresent(builder::trustManager);
        tls.keyManagerFactory().ifPresent(builder::keyManager);
        return builder.build();
    }

    /** Sets peer verification on a TLS {@code uri}: full (certificate and host name), certificate chain only, or none. */
    static void verifyPeer(RedisURI uri, TlsSettings tls) {
        if (uri.isSsl()) {
            uri.setVerifyPeer(switch (tls.verification()) {
                case FULL -> SslVerifyMode.FULL;
                case CA -> SslVerifyMode.CA;
                case NONE -> SslVerifyMode.NONE;
            });
        }
    }
}
