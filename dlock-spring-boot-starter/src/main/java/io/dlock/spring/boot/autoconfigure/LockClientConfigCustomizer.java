package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClientConfig;

/**
 * Adjusts the auto-configured {@code LockClient}'s settings after the {@code dlock.*} properties were applied, e.g.
 * to give it an executor. Beans of this type are applied in their {@code @Order}; not called when the application
 * defines its own {@code LockClient}. Where Redis is has been set already (as a URI or a {@code RedisConnection}, the
 * builder refuses the other form at build time): to decide it, define a {@link DlockConnectionDetails} bean instead.
 */
@FunctionalInterface
public interface LockClientConfigCustomizer {

    /** @param builder the settings so far; change them in place */
    void customize(LockClientConfig.Builder builder);
}
