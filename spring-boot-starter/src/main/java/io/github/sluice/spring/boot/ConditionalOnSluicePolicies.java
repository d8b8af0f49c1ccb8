package io.github.sluice.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Conditional;

/**
 * Applies a configuration only when {@code sluice.enabled} is not {@code false} and policies are
 * given: at least one {@code sluice.policies.<name>} property, a {@code sluice.config} file, or an
 * {@link io.github.sluice.http.Enforcer} bean. The switch of every Sluice auto-configuration.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnPoliciesCondition.class)
public @interface ConditionalOnSluicePolicies {
}
