package io.dlock.spring.boot.autoconfigure;

import io.dlock.LockClient;
import io.dlock.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * dlock's meters ({@link LockMetrics}, a {@code MeterBinder} that Spring Boot's metrics support binds to the
 * application's {@link MeterRegistry}) when Micrometer is on the class path, the application has a
 * {@code MeterRegistry} and a {@link LockClient}, and {@code dlock.metrics.enabled} is not false. Lock names become
 * tags only for names matching {@code dlock.metrics.lock-name-tags}. Waits (lock and permit acquisitions, latch
 * awaits) are observed in the application's {@link ObservationRegistry} only when
 * {@code dlock.metrics.observe-acquisitions} is true: Spring Boot's default observation handler then also makes timers
 * named {@code dlock.acquire}, {@code dlock.permit.acquire} and {@code dlock.latch.await}, with other tag keys than
 * dlock's own, which registries such as Prometheus refuse. Closed with the context.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, LockMetrics.class})
@ConditionalOnBooleanProperty(name = "dlock.metrics.enabled", matchIfMissing = true)
public class DlockMetricsAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnBean({MeterRegistry.class, LockClient.class})
    @ConditionalOnMissingBean(LockMetrics.class)
    LockMetrics dlockLockMetrics(LockClient client, DlockProperties properties,
                                 ObjectProvider<ObservationRegistry> observations) {
        LockMetrics.Builder builder = LockMetrics.builder(client);
        List<String> patterns = properties.getMetrics().getLockNameTags();
        if (!patterns.isEmpty()) {
            builder.lockNameTags(anyOf(patterns));
        }
        if (properties.getMetrics().isObserveAcquisitions()) {
            observations.ifAvailable(builder::observationRegistry);
        }
        return builder.build();
    }

    /** @return a filter accepting names that wholly match any of {@code patterns} */
    static Predicate<String> anyOf(List<String> patterns) {
        Predicate<String> any = name -> false;
        for (int i = 0; i < patterns.size(); i++) {
            String regex = patterns.get(i);
            try {
                Pattern pattern = Pattern.compile(regex);
                any = any.or(name -> pattern.matcher(name).matches());
            } catch (PatternSyntaxException e) {
                throw new InvalidConfigurationPropertyValueException("dlock.metrics.lock-name-tags[" + i + "]", regex,
                        "not a regular expression: " + e.getDescription());
            }
        }
        return any;
    }
}
