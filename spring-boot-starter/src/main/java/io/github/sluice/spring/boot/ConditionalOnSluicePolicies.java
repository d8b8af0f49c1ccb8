package io.github.sluice.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Applies a configuration only when at least one {@code sluice.policies.<name>} property is set
 * and {@code sluice.enabled} is not {@code false}: the switch of every Sluice auto-configuration.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnPoliciesCondition.class)
public @interface ConditionalOnSluicePolicies {
}
