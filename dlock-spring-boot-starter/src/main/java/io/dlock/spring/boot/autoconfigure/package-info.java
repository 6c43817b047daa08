/**
 * Spring Boot auto-configuration of dlock: one {@link io.dlock.LockClient} for the application, and, when their
 * libraries are present, {@code @DistributedLocked} support, a Spring Integration lock registry, metrics, a health
 * indicator and the {@code dlock} actuator endpoint.
 *
 * <p>What applications use:
 * <ul>
 *   <li>the {@code dlock.*} properties, bound to {@link io.dlock.spring.boot.autoconfigure.DlockProperties};</li>
 *   <li>beans of type {@link io.dlock.spring.boot.autoconfigure.LockClientConfigCustomizer}, to adjust the client's
 *       settings after the properties, and of type {@link io.dlock.spring.boot.autoconfigure.DlockConnectionDetails},
 *       to decide where the client connects;</li>
 *   <li>the auto-configuration classes by name, to exclude them or to order other auto-configurations against them
 *       (they are listed in {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}).
 *       Their bean methods are called by Spring, not by applications.</li>
 * </ul>
 * Every other class of this package is package-private (how properties and connection details become a
 * {@code LockClientConfig}) and may change without notice. See the module's README for the properties and the order
 * in which the connection is chosen.
 */
package io.dlock.spring.boot.autoconfigure;
