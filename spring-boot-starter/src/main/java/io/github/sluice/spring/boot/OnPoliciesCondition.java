package io.github.sluice.spring.boot;

import io.github.sluice.http.Enforcer;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code sluice.enabled} is not {@code false} and policies are given in one of the
 * three ways the starter knows: a {@code sluice.policies.<name>}, a {@code sluice.config} file, or
 * an {@link Enforcer} bean. {@code @ConditionalOnProperty} cannot say this: the policies are a
 * map, and the bean is not a property.
 *
 * <p>Evaluated when beans are registered, so that the application's {@link Enforcer} bean (defined
 * before any auto-configuration) is seen.
 */
final class OnPoliciesCondition extends SpringBootCondition implements ConfigurationCondition {

    @Override
    public ConfigurationPhase getConfigurationPhase() {
        return ConfigurationPhase.REGISTER_BEAN;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Binder binder = Binder.get(context.getEnvironment());
        if (!binder.bind(SluiceProperties.PREFIX + ".enabled", Boolean.class).orElse(Boolean.TRUE)) {
            return ConditionOutcome.noMatch("sluice.enabled is false");
        }
        Map<String, String> policies = binder.bind(SluiceProperties.PREFIX + ".policies",
                Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        if (!policies.isEmpty()) {
            return ConditionOutcome.match("sluice.policies " + policies.keySet());
        }
        String config = binder.bind(SluiceProperties.PREFIX + ".config", String.class).orElse("");
        if (!config.isBlank()) {
            return ConditionOutcome.match("sluice.config " + config.strip());
        }
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        if (beans != null && beans.getBeanNamesForType(Enforcer.class, true, false).length > 0) {
            return ConditionOutcome.match("an Enforcer bean is defined");
        }
        return ConditionOutcome.noMatch("no sluice.policies.<name>, no sluice.config and no Enforcer bean");
    }
}
