package io.github.sluice.spring.boot.actuate;

import io.github.sluice.http.Enforcer;
import io.github.sluice.spring.boot.ConditionalOnSluicePolicies;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code sluice} health contributor on Spring Boot 3.x, whose health API is
 * {@code org.springframework.boot.actuate.health} in {@code spring-boot-actuator}.
 *
 * <p>Guarded by the class name {@value #BOOT3_HEALTH_INDICATOR}, which exists only in Boot 3.x:
 * on Boot 4.0 this configuration is skipped before any of its classes load, and
 * {@link io.github.sluice.spring.boot.health.SluiceHealthContributorAutoConfiguration} registers
 * the contributor instead (same bean name, same health component {@code sluice}).
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluicePolicies
@ConditionalOnClass(name = SluiceHealthAutoConfiguration.BOOT3_HEALTH_INDICATOR)
@ConditionalOnBean(Enforcer.class)
public class SluiceHealthAutoConfiguration {

    /** Boot 3.x's health indicator interface; absent from Boot 4.0. */
    static final String BOOT3_HEALTH_INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

    /** Creates the configuration; Boot does. */
    public SluiceHealthAutoConfiguration() {
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
