package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.LockClientConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configures one {@link LockClient} for the application, closed when the context closes.
 *
 * <p>Where it connects ({@link DlockConnectionDetails}): {@code dlock.redis-uri} when set; else the application's
 * Spring Data Redis connection when it has one ({@code spring.data.redis.*}, or the connection-details bean of a
 * service connection); else {@code redis://localhost:6379}. Its settings come from the {@code dlock.*} properties
 * ({@link DlockProperties}) and then {@link LockClientConfigCustomizer} beans.
 *
 * <p>Backs off when the application defines its own {@code LockClient} bean. Creating the client connects to Redis:
 * start-up fails when Redis cannot be reached or a setting is bad, with a message naming the property and never
 * showing a password.
 */
@AutoConfiguration(afterName = {"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration"})
@ConditionalOnClass(LockClient.class)
@EnableConfigurationProperties(DlockProperties.class)
public class DlockAutoConfiguration {

    /** Connection details from Spring Data Redis, unless {@code dlock.redis-uri} is set. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataRedisConnectionDetails.class)
    @ConditionalOnBean(DataRedisConnectionDetails.class)
    @Conditional(NoDlockRedisUriCondition.class)
    static class FromSpringDataRedis {

        @Bean
        @ConditionalOnMissingBean(DlockConnectionDetails.class)
        DlockConnectionDetails dlockConnectionDetails(DataRedisConnectionDetails details,
                                                      ObjectProvider<DataRedisProperties> properties) {
            DataRedisProperties redis = properties.getIfAvailable();
            String url = redis == null ? null : redis.getUrl();
            return new DataRedisDlockConnectionDetails(details, url != null && url.startsWith("rediss:"));
        }
    }

    @Bean
    @ConditionalOnMissingBean(DlockConnectionDetails.class)
    DlockConnectionDetails dlockConnectionDetails(DlockProperties properties, ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesDlockConnectionDetails(properties, sslBundles.getIfAvailable());
    }

    /**
     * @throws InvalidConfigurationPropertyValueException when a setting is refused (naming its property)
     * @throws io.dlock.LockException                     when Redis cannot be reached
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    LockClient lockClient(DlockProperties properties, DlockConnectionDetails connection,
                          ObjectProvider<LockClientConfigCustomizer> customizers,
                          org.springframework.core.env.Environment environment) {
        LockClientConfig config = LockClientConfigFactory.create(properties, connection,
                environment.getProperty("spring.application.name"), customizers.orderedStream().toList());
        try {
            return LockClient.create(config);
        } catch (IllegalArgumentException e) {
            // the client's messages never show credentials; the description shows no password either
            throw new InvalidConfigurationPropertyValueException(connection.getOrigin(), config.redisDescription(),
                    e.getMessage());
        }
    }
}
