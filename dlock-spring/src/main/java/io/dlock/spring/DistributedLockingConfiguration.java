package io.dlock.spring;

import io.dlock.LockClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportAware;
import org.springframework.context.annotation.Role;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Part of {@link EnableDistributedLocking}: the advisor bean, an infrastructure bean so that the infrastructure
 * auto-proxy creator applies it. The {@link LockClient} bean is looked up on the first locked call, not while the
 * advisor is created (which happens before ordinary beans).
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class DistributedLockingConfiguration implements ImportAware {
    private int order = DistributedLockedAdvisor.DEFAULT_ORDER;

    @Override
    public void setImportMetadata(AnnotationMetadata importingClass) {
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClass.getAnnotationAttributes(EnableDistributedLocking.class.getName()));
        if (attributes != null) {
            order = attributes.<Integer>getNumber("order");
        }
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    DistributedLockedAdvisor distributedLockedAdvisor(ObjectProvider<LockClient> client) {
        DistributedLockedAdvisor advisor = new DistributedLockedAdvisor(new Memoized(client));
        advisor.setOrder(order);
        return advisor;
    }

    /** The client bean, looked up once on first use. Thread-safe (a race only looks it up twice). */
    private static final class Memoized implements java.util.function.Supplier<LockClient> {
        private final ObjectProvider<LockClient> provider;
        private volatile LockClient client;

        Memoized(ObjectProvider<LockClient> provider) {
            this.provider = provider;
        }

        @Override
        public LockClient get() {
            LockClient found = client;
            if (found == null) {
                found = provider.getObject();
                client = found;
            }
            return found;
        }
    }
}
