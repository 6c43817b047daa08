package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A {@link SanitizingFunction} that hides dlock's secrets ({@code dlock.tls.*-password}, the password in
 * {@code dlock.redis-uri}) in the {@code env} and {@code configprops} actuator endpoints, also when they show values
 * ({@code management.endpoint.env.show-values=always}). Present whenever Spring Boot Actuator is; an application
 * replaces it with a bean named {@code dlockSanitizingFunction}.
 */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.SanitizingFunction")
public class DlockSanitizingAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "dlockSanitizingFunction")
    SanitizingFunction dlockSanitizingFunction() {
        return new DlockSecretsSanitizer();
    }
}
