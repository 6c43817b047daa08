package io.dlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code long} (or {@code Long}) parameter of a {@link LeaderOnly} method that receives the epoch of the
 * term the call runs in ({@link io.dlock.LeaderTerm#epoch()}, the value {@code requireValid()} returned just before
 * the call), in place of whatever the caller passed. Any other parameter type is refused when the proxy is created.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderEpoch {
}
