package io.dlock.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Part of {@link EnableDistributedLocking}: registers Spring's infrastructure auto-proxy creator unless the context has
 * an auto-proxy creator already (one that applies more advisors stays), and forces class proxies when asked.
 */
final class DistributedLockingRegistrar implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClass, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        AnnotationAttributes attributes = AnnotationAttributes.fromMap(
                importingClass.getAnnotationAttributes(EnableDistributedLocking.class.getName()));
        if (attributes != null && attributes.getBoolean("proxyTargetClass")) {
            AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
        }
    }
}
