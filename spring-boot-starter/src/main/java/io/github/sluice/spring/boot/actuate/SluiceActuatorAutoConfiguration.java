package io.github.sluice.spring.boot.actuate;

import io.github.sluice.http.Enforcer;
import io.github.sluice.micrometer.SluiceMetrics;
import io.github.sluice.spring.boot.ConditionalOnSluicePolicies;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import io.github.sluice.spring.boot.SluiceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sluice in the actuator, when {@code spring-boot-actuator} is on the class path: the
 * {@link SluiceEndpoint}, the {@link SluiceTopEndpoint} and, with {@code sluice-micrometer} and Micrometer present, the
 * {@link SluiceMetrics} meters (Boot binds every {@code MeterBinder} bean to its registries). The
 * same on Boot 3.5 and 4.0.
 *
 * <p>The health contributor moved packages between those Boot generations, so it has an
 * auto-configuration for each: {@link SluiceHealthAutoConfiguration} (Boot 3.5) and
 * {@link io.github.sluice.spring.boot.health.SluiceHealthContributorAutoConfiguration} (Boot 4.0).
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluicePolicies
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Enforcer.class)
public class SluiceActuatorAutoConfiguration {

    /** Creates the configuration; Boot does. */
    public SluiceActuatorAutoConfiguration() {
    }

    /**
     * The {@code sluice} endpoint.
     *
     * @param enforcer the enforcer
     * @param properties the properties, for each policy's configured text
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public SluiceEndpoint sluiceEndpoint(Enforcer enforcer, SluiceProperties properties) {
        return new SluiceEndpoint(enforcer, properties.getPolicies());
    }

    /**
     * The {@code sluicetop} endpoint: a policy's heaviest clients.
     *
     * @param enforcer the enforcer
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public SluiceTopEndpoint sluiceTopEndpoint(Enforcer enforcer) {
        return new SluiceTopEndpoint(enforcer);
    }

    /** Micrometer meters, when the {@code sluice-micrometer} module and Micrometer are present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({SluiceMetrics.class, MeterRegistry.class})
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        SluiceMetrics sluiceMetrics(Enforcer enforcer) {
            return new SluiceMetrics(enforcer);
        }
    }
}
