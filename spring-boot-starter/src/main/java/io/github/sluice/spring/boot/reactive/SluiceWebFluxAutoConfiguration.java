package io.github.sluice.spring.boot.reactive;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import io.github.sluice.spring.boot.ConditionalOnSluicePolicies;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import io.github.sluice.spring.boot.SluiceProperties;
import io.github.sluice.webflux.RateLimitedWebFilter;
import io.github.sluice.webflux.SluiceWebFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;

/**
 * Sluice in a reactive web application (Spring WebFlux), from the same {@code sluice.*}
 * properties as a servlet application: the {@link SluiceWebFilter} at {@code sluice.filter.order}
 * (unless {@code sluice.filter.enabled=false}), and {@code @RateLimited}
 * ({@link io.github.sluice.webflux.RateLimited}) on annotated controllers, every handler method's
 * annotation resolved at start-up. The enforcer, its store, the actuator endpoint, the health
 * contributor and the Micrometer meters are the ones {@link SluiceAutoConfiguration} and the
 * actuator configurations define for every application. Shaped requests wait on a timer, never
 * on a thread ({@code sluice.filter.shaping=blocking} fails the start-up here).
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class, afterName = {
        "org.springframework.boot.autoconfigure.web.reactive.WebFluxAutoConfiguration",
        "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration"})
@ConditionalOnSluicePolicies
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({SluiceWebFilter.class, org.springframework.web.server.WebFilter.class})
@ConditionalOnBean(Enforcer.class)
public class SluiceWebFluxAutoConfiguration {

    /** The name of the {@link SluiceWebFilter} bean. */
    public static final String WEB_FILTER = "sluiceWebFilter";

    private static final Log LOG = LogFactory.getLog(SluiceWebFluxAutoConfiguration.class);

    /** Creates the configuration; Boot does. */
    public SluiceWebFluxAutoConfiguration() {
    }

    /**
     * The web filter, applying every policy by its {@code match}.
     *
     * @param enforcer the enforcer
     * @param properties the {@code sluice.*} properties ({@code sluice.filter.order})
     * @return the filter
     * @throws ConfigException if {@code sluice.filter.shaping} is {@code blocking}, or not a mode
     */
    @Bean(name = WEB_FILTER)
    @ConditionalOnMissingBean(name = WEB_FILTER)
    @ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", matchIfMissing = true)
    public SluiceWebFilter sluiceWebFilter(Enforcer enforcer, SluiceProperties properties) {
        SluiceProperties.Filter f = properties.getFilter();
        String shaping = f.getShaping() == null ? "async" : f.getShaping().strip();
        if (!shaping.equals("async")) {
            throw new ConfigException("property 'sluice.filter.shaping'", 0, null, "shaping", f.getShaping(),
                    shaping.equals("blocking") ? "a reactive application never blocks an event loop: shaped requests"
                            + " wait on a timer; remove the property" : "shaping must be async or blocking", null);
        }
        return new SluiceWebFilter(enforcer, f.getOrder());
    }

    /**
     * {@code @RateLimited} on annotated controllers.
     *
     * @param enforcer the enforcer whose policies the annotations name
     * @param mapping the request mapping of the application's annotated controllers (WebFlux's
     *     {@code requestMappingHandlerMapping}; the actuator has one of its own)
     * @return the filter
     */
    @Bean
    @ConditionalOnMissingBean
    public RateLimitedWebFilter sluiceRateLimitedWebFilter(Enforcer enforcer,
            @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping mapping) {
        return new RateLimitedWebFilter(enforcer, mapping);
    }

    /**
     * Resolves every handler method's annotation once every singleton exists (an unknown policy
     * fails the start-up), and logs one WARNING naming the {@code match=none} policies that no
     * annotation names (the application may still apply them with a {@code SluiceHandlerFilter}).
     *
     * @param filter the filter
     * @param enforcer the enforcer
     * @return the check
     */
    @Bean
    @ConditionalOnBean(RateLimitedWebFilter.class)
    public SmartInitializingSingleton sluiceRateLimitedWebFluxCheck(RateLimitedWebFilter filter, Enforcer enforcer) {
        return () -> {
            Set<String> named = filter.resolveAll();
            List<String> unused = new ArrayList<>();
            for (Policy p : enforcer.policies()) {
                if (Match.NONE.equals(p.match()) && !named.contains(p.name())) {
                    unused.add(p.name());
                }
            }
            if (!unused.isEmpty()) {
                LOG.warn("Sluice policies " + unused + " are match=none and no @RateLimited handler names them: they"
                        + " apply to no request unless a route applies them (SluiceHandlerFilter) or the application"
                        + " selects them itself (Enforcer.select)");
            }
        };
    }
}
