package io.dlock.spring.boot.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when {@code dlock.redis-uri} is unset or blank: then dlock follows the application's Redis settings. */
class NoDlockRedisUriCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String uri = context.getEnvironment().getProperty("dlock.redis-uri");
        return uri == null || uri.isBlank()
                ? ConditionOutcome.match("dlock.redis-uri is not set")
                : ConditionOutcome.noMatch("dlock.redis-uri is set");
    }
}
