package io.dlock.internal.transport;

import io.dlock.LockClientConfig;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;

/** Maps the TLS settings of a {@link LockClientConfig} onto Lettuce's {@link SslOptions} and {@link RedisURI}s. */
final class Tls {
    private Tls() {
    }

    /**
     * @return the options of the trust store / trusted certificates and key store that {@code config} names
     * @throws IllegalArgumentException when TLS options are set but {@code tls} is false: a careful operator who gave
     *                                  certificates expects TLS, never a silent plain-text connection
     */
    static SslOptions options(LockClientConfig config, boolean tls) {
        if (!tls && config.hasTlsOptions()) {
            throw new IllegalArgumentException("TLS options (trustStore, trustedCertificates, keyStore, verifyPeer, "
                    + "trustManagerFactory, keyManagerFactory) "
                    + "are set but redisUri is not a TLS URI (rediss://, rediss-sentinel://, rediss-cluster://): "
                    + RedisTransport.redacted(config.redisUri()));
        }
        SslOptions.Builder builder = SslOptions.builder().jdkSslProvider();
        config.trustStore().ifPresent(file ->
                builder.truststore(SslOptions.Resource.from(file.toFile()), config.trustStorePassword()));
        config.trustedCertificates().ifPresent(file -> builder.trustManager(file.toFile()));
        config.keyStore().ifPresent(file -> builder.keystore(file.toFile(), config.keyStorePassword()));
        config.trustManagerFactory().ifPresent(builder::trustManager);
        config.keyManagerFactory().ifPresent(builder::keyManager);
        return builder.build();
    }

    /** Sets peer verification on a TLS {@code uri}: full (certificate and host name) or none. */
    static void verifyPeer(RedisURI uri, LockClientConfig config) {
        if (uri.isSsl()) {
            uri.setVerifyPeer(config.verifyPeer() ? SslVerifyMode.FULL : SslVerifyMode.NONE);
        }
    }
}
