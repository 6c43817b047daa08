package io.dlock.spring;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Turns on {@link DistributedLocked} in a plain Spring application (Spring Boot's auto-configuration does it by
 * itself): put it on a {@code @Configuration} class of a context that has one {@link io.dlock.LockClient} bean.
 *
 * <p>Registers a {@link DistributedLockedAdvisor} (an infrastructure bean that resolves the {@code LockClient} bean on
 * its first locked call) and, unless the context already has one, Spring's auto-proxy creator for infrastructure
 * advisors: the one {@code @EnableTransactionManagement} and {@code @EnableCaching} share, so beans are never proxied
 * twice.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import({DistributedLockingRegistrar.class, DistributedLockingConfiguration.class})
public @interface EnableDistributedLocking {

    /**
     * Whether to proxy classes (CGLIB) rather than interfaces. Applies to every bean proxied by the shared auto-proxy
     * creator, as the same attribute of {@code @EnableTransactionManagement} does. A bean that implements an interface
     * is otherwise proxied by interface, and only methods declared on it can be locked (or {@code @Scheduled}).
     */
    boolean proxyTargetClass() default false;

    /** The advisor's order; {@link DistributedLockedAdvisor#DEFAULT_ORDER} runs outside {@code @Transactional}. */
    int order() default DistributedLockedAdvisor.DEFAULT_ORDER;
}
