package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.OriginLookup;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;

import java.util.Locale;

/**
 * The start-up report of an invalid property that may hold a secret, without its value.
 *
 * <p>Spring Boot's own report of an {@link InvalidConfigurationPropertyValueException} reads the named property back
 * from the environment and prints its raw value, so a refused {@code dlock.redis-uri} would show the password in its
 * user info. This analyzer runs first (highest precedence) and answers for every property whose name says it may hold
 * a secret ({@link #mayHoldSecret}): the same report (the property, where it was set, the reason), with the value
 * replaced by a note. Other properties are left to Boot's analyzer. Registered in {@code META-INF/spring.factories};
 * Boot passes the environment to the constructor.
 */
final class SecretPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidConfigurationPropertyValueException>
        implements Ordered {
    static final String NOT_SHOWN = "(not shown: it may hold a password)";

    private final Environment environment;

    /** @param environment the failed application's environment, or null when Boot has none to give */
    SecretPropertyFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidConfigurationPropertyValueException cause) {
        if (!mayHoldSecret(cause.getName())) {
            return null;
        }
        StringBuilder description = new StringBuilder("Invalid value ").append(NOT_SHOWN)
                .append(" for configuration property '").append(cause.getName()).append("'");
        Origin origin = origin(cause.getName());
        if (origin != null) {
            description.append(" (originating from '").append(origin).append("')");
        }
        description.append('.');
        if (cause.getReason() != null && !cause.getReason().isBlank()) {
            description.append(" Validation failed for the following reason:").append(System.lineSeparator())
                    .append(System.lineSeparator()).append(cause.getReason());
        }
        return new FailureAnalysis(description.toString(), "Review the value of the property"
                + (cause.getReason() != null ? " with the provided reason." : "."), cause);
    }

    /**
     * @return whether a property of that name may hold a secret: a password, secret, token or credentials, or a URI or
     * URL (whose user info may carry a password), such as {@code dlock.redis-uri}, {@code spring.data.redis.url},
     * {@code dlock.tls.key-store-password} or {@code spring.data.redis.sentinel.password}
     */
    static boolean mayHoldSecret(String propertyName) {
        String name = propertyName.toLowerCase(Locale.ROOT);
        String last = name.substring(name.lastIndexOf('.') + 1);
        return name.contains("password") || name.contains("secret") || name.contains("token")
                || name.contains("credential") || last.equals("uri") || last.equals("url") || last.endsWith("-uri")
                || last.endsWith("-url") || last.endsWith("uris") || last.endsWith("urls");
    }

    /** @return where the property was set (never its value), or null when unknown */
    private Origin origin(String propertyName) {
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return null;
        }
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (source.containsProperty(propertyName)) {
                return OriginLookup.getOrigin(source, propertyName);
            }
        }
        return null;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
