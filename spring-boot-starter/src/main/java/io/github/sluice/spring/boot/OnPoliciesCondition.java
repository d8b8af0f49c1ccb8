package io.github.sluice.spring.boot;

import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when at least one {@code sluice.policies.<name>} is set and {@code sluice.enabled} is
 * not {@code false}. {@code @ConditionalOnProperty} cannot say this: the policies are a map.
 */
final class OnPoliciesCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Binder binder = Binder.get(context.getEnvironment());
        if (!binder.bind(SluiceProperties.PREFIX + ".enabled", Boolean.class).orElse(Boolean.TRUE)) {
            return ConditionOutcome.noMatch("sluice.enabled is false");
        }
        Map<String, String> policies = binder.bind(SluiceProperties.PREFIX + ".policies",
                Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        return policies.isEmpty() ? ConditionOutcome.noMatch("no sluice.policies.<name> is set")
                : ConditionOutcome.match("sluice.policies " + policies.keySet());
    }
}
