package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.spring.LeaderElections;
import io.dlock.spring.boot.actuate.DlockEndpoint;
import io.dlock.spring.boot.actuate.DlockEndpointWebExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code dlock} actuator endpoint ({@link DlockEndpoint}, listing the {@link LeaderElections} too when there is
 * one) when Spring Boot Actuator is present, there is a {@link LockClient} and the endpoint is available (exposed: e.g.
 * {@code management.endpoints.web.exposure.include=health,dlock}).
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnAvailableEndpoint(DlockEndpoint.class)
public class DlockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnBean(LockClient.class)
    @ConditionalOnMissingBean
    DlockEndpoint dlockEndpoint(LockClient client, ObjectProvider<LeaderElections> elections) {
        return new DlockEndpoint(client, elections.getIfAvailable());
    }

    /** The HTTP statuses of {@code /actuator/dlock/{name}} (see {@link DlockEndpointWebExtension}). */
    @Bean
    @ConditionalOnBean(DlockEndpoint.class)
    @ConditionalOnMissingBean
    DlockEndpointWebExtension dlockEndpointWebExtension(DlockEndpoint endpoint) {
        return new DlockEndpointWebExtension(endpoint);
    }
}
