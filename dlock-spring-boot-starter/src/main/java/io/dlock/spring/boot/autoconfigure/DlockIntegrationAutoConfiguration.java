package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.spring.DlockLockRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A Spring Integration {@link LockRegistry} of dlock locks ({@link DlockLockRegistry}, watchdog leases) when Spring
 * Integration is on the class path, there is a {@link LockClient} and the application has no {@code LockRegistry}.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass({LockRegistry.class, DlockLockRegistry.class})
public class DlockIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean(LockRegistry.class)
    DlockLockRegistry dlockLockRegistry(LockClient client) {
        return new DlockLockRegistry(client);
    }
}
