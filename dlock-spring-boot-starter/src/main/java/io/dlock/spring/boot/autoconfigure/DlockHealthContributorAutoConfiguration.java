package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.spring.boot.actuate.DlockHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code dlock} health indicator ({@link DlockHealthIndicator}) when Spring Boot's health support is present and
 * {@code management.health.dlock.enabled} is not false. It judges the client by the client's own settings
 * ({@link LockClient#config()}: probe lock name, watchdog timeout), also for a {@code LockClient} the application
 * defined or customised itself, and waits at most {@link DlockHealthIndicator#DEFAULT_TIMEOUT} for Redis per check.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnEnabledHealthIndicator("dlock")
public class DlockHealthContributorAutoConfiguration {

    @Bean(name = "dlockHealthIndicator")
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean(name = "dlockHealthIndicator")
    DlockHealthIndicator dlockHealthIndicator(LockClient client) {
        return new DlockHealthIndicator(client);
    }
}
