package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.spring.LeaderElections;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The application's leader elections ({@link LeaderElections}, for {@link io.dlock.spring.LeaderOnly @LeaderOnly}
 * methods and the actuator endpoint), from {@code dlock.leader.elections.<name>.*}, when there is a {@link LockClient}
 * and the application has no {@code LeaderElections} of its own. A bad value fails start-up naming its property.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass({LockClient.class, LeaderElections.class})
@EnableConfigurationProperties(DlockProperties.class)
public class DlockLeaderElectionAutoConfiguration {

    /**
     * @throws org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException when an
     *         election's setting is refused (naming its property)
     */
    @Bean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean
    LeaderElections leaderElections(LockClient client, DlockProperties properties) {
        return LeaderElectionsFactory.create(client, properties.getLeader());
    }
}
