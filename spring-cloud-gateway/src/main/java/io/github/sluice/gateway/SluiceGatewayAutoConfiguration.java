package io.github.sluice.gateway;

import io.github.sluice.http.Enforcer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.cloud.gateway.filter.factory.GatewayFilterFactory;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * The gateway filter {@code Sluice} and the {@code sluiceRateLimiter} bean, in a Spring Cloud
 * Gateway application that has an {@link Enforcer} (the Spring Boot starter builds it from
 * {@code sluice.*}). Before the gateway's own configuration, whose {@code RequestRateLimiter}
 * filter exists only when a {@code RateLimiter} bean does.
 */
@AutoConfiguration(afterName = "io.github.sluice.spring.boot.SluiceAutoConfiguration",
        beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(GatewayFilterFactory.class)
@ConditionalOnBean(Enforcer.class)
public class SluiceGatewayAutoConfiguration {

    /** Creates the configuration; Boot does. */
    public SluiceGatewayAutoConfiguration() {
    }

    /**
     * @param enforcer the enforcer whose policies routes name
     * @return the factory of the {@code Sluice} filter
     */
    @Bean
    @ConditionalOnMissingBean
    public SluiceGatewayFilterFactory sluiceGatewayFilterFactory(Enforcer enforcer) {
        return new SluiceGatewayFilterFactory(enforcer);
    }

    /**
     * @param enforcer the enforcer whose policies routes name
     * @param configurationService the gateway's binder of route arguments
     * @return the limiter, {@code #{@sluiceRateLimiter}} in route arguments
     */
    @Bean
    @ConditionalOnMissingBean
    public SluiceRateLimiter sluiceRateLimiter(Enforcer enforcer, ConfigurationService configurationService) {
        return new SluiceRateLimiter(enforcer, configurationService);
    }
}
