package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.spring.DistributedLockedAdvisor;
import io.dlock.spring.EnableDistributedLocking;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Configuration;

/**
 * Turns on {@link io.dlock.spring.DistributedLocked @DistributedLocked} and
 * {@link io.dlock.spring.DistributedConcurrencyLimit @DistributedConcurrencyLimit} methods: registers a
 * {@link DistributedLockedAdvisor} (which uses the application's {@link LockClient} bean) unless the application has
 * one, and {@code dlock.annotation.enabled} is not false.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration")
@ConditionalOnClass({LockClient.class, DistributedLockedAdvisor.class})
@ConditionalOnBooleanProperty(name = "dlock.annotation.enabled", matchIfMissing = true)
public class DlockAnnotationAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(DistributedLockedAdvisor.class)
    @EnableDistributedLocking
    static class Enabled {
    }
}
