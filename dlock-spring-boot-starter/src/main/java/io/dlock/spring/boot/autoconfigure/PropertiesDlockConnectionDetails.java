package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClientConfig;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** {@link DlockConnectionDetails} from {@code dlock.redis-uri} and {@code dlock.tls.bundle}. */
final class PropertiesDlockConnectionDetails implements DlockConnectionDetails {
    private final DlockProperties properties;
    private final SslBundles sslBundles;

    /** @param sslBundles the application's bundles, or null when it has none */
    PropertiesDlockConnectionDetails(DlockProperties properties, SslBundles sslBundles) {
        this.properties = properties;
        this.sslBundles = sslBundles;
    }

    @Override
    public String getRedisUri() {
        String uri = properties.getRedisUri();
        return uri == null || uri.isBlank() ? LockClientConfig.DEFAULT_REDIS_URI : uri;
    }

    @Override
    public SslBundle getSslBundle() {
        String name = properties.getTls().getBundle();
        if (name == null || name.isBlank()) {
            return null;
        }
        if (sslBundles == null) {
            throw new InvalidConfigurationPropertyValueException("dlock.tls.bundle", name,
                    "the application has no SSL bundles (spring.ssl.bundle.*)");
        }
        try {
            return sslBundles.getBundle(name);
        } catch (NoSuchSslBundleException e) {
            throw new InvalidConfigurationPropertyValueException("dlock.tls.bundle", name,
                    "no SSL bundle of that name (spring.ssl.bundle.*)");
        }
    }

    @Override
    public String getOrigin() {
        return "dlock.redis-uri";
    }
}
