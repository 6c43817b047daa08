package io.dlock.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Settings of the {@link io.dlock.LockClient}s that {@link RedisExtension} injects. May be put on a
 * {@code LockClient} parameter, on the method or constructor declaring it, or on the test class (or an enclosing
 * class of a {@code @Nested} one). Each setting is taken from the nearest place that gives it a non-zero value, in
 * that order (parameter, method, class, enclosing classes); 0 means "not set here", and a setting set nowhere keeps
 * {@link io.dlock.LockClientConfig}'s default.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * @ClientSettings(commandTimeoutMillis = 500)
 * class LeaseIT {
 *     @Test
 *     void shortLease(@ClientSettings(watchdogTimeoutMillis = 300) LockClient client) { ... }
 * }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE})
public @interface ClientSettings {

    /** {@link io.dlock.LockClientConfig.Builder#watchdogTimeout}, in ms; 0 = not set here. */
    long watchdogTimeoutMillis() default 0;

    /** {@link io.dlock.LockClientConfig.Builder#commandTimeout}, in ms; 0 = not set here. */
    long commandTimeoutMillis() default 0;

    /** {@link io.dlock.LockClientConfig.Builder#fairLockWaitTimeout}, in ms; 0 = not set here. */
    long fairLockWaitTimeoutMillis() default 0;
}
