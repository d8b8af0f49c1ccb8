package io.github.sluice.spring.boot.health;

import io.github.sluice.http.Enforcer;
import io.github.sluice.spring.boot.ConditionalOnSluicePolicies;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sluice} health contributor on Spring Boot 4.0, whose health API moved to
 * {@code org.springframework.boot.health.contributor} in the {@code spring-boot-health} module
 * (brought by {@code spring-boot-starter-actuator}).
 *
 * <p>Guarded by the class name {@value #BOOT4_HEALTH_INDICATOR}, which exists only from Boot 4.0:
 * on Boot 3.x this configuration is skipped before any of its classes load, and
 * {@link io.github.sluice.spring.boot.actuate.SluiceHealthAutoConfiguration} registers the
 * contributor instead. Either way the bean is named {@code sluiceHealthIndicator} (define a bean
 * of that name to replace it) and the component is {@code /actuator/health/sluice}, switched off
 * with {@code management.health.sluice.enabled=false}.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluicePolicies
@ConditionalOnClass(name = SluiceHealthContributorAutoConfiguration.BOOT4_HEALTH_INDICATOR)
@ConditionalOnBean(Enforcer.class)
public class SluiceHealthContributorAutoConfiguration {

    /** Boot 4.0's health indicator interface; absent from Boot 3.x. */
    static final String BOOT4_HEALTH_INDICATOR = "org.springframework.boot.health.contributor.HealthIndicator";

    /** Creates the configuration; Boot does. */
    public SluiceHealthContributorAutoConfiguration() {
    }

    /**
     * The {@code sluice} health contributor.
     *
     * @param enforcer the enforcer
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "sluiceHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("sluice")
    public SluiceHealthIndicator sluiceHealthIndicator(Enforcer enforcer) {
        return new SluiceHealthIndicator(enforcer);
    }
}
