package io.github.sluice.spring.boot.web;

import io.github.sluice.http.Enforcer;
import io.github.sluice.spring.boot.ConditionalOnSluicePolicies;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * {@link RateLimited} on Spring MVC handlers: registers the {@link RateLimitedInterceptor} and, once
 * every singleton exists, resolves the annotation of every handler method of every request
 * mapping, so that an unknown policy name fails the start-up.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluicePolicies
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(WebMvcConfigurer.class)
@ConditionalOnBean(Enforcer.class)
public class SluiceWebMvcAutoConfiguration {

    /** Creates the configuration; Boot does. */
    public SluiceWebMvcAutoConfiguration() {
    }

    /**
     * The interceptor.
     *
     * @param enforcer the enforcer whose policies the annotations name
     * @return the interceptor
     */
    @Bean
    @ConditionalOnMissingBean
    public RateLimitedInterceptor sluiceRateLimitedInterceptor(Enforcer enforcer) {
        return new RateLimitedInterceptor(enforcer);
    }

    /**
     * Adds the interceptor to Spring MVC's.
     *
     * @param interceptor the interceptor
     * @return the configurer
     */
    @Bean
    public WebMvcConfigurer sluiceWebMvcConfigurer(RateLimitedInterceptor interceptor) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(interceptor);
            }
        };
    }

    /**
     * Resolves every handler method's annotation at start-up.
     *
     * @param interceptor the interceptor
     * @param beans the bean factory, for the request mappings
     * @return the check, run after every singleton is created
     */
    @Bean
    public SmartInitializingSingleton sluiceRateLimitedCheck(RateLimitedInterceptor interceptor,
            ListableBeanFactory beans) {
        return () -> {
            for (RequestMappingInfoHandlerMapping mapping
                    : beans.getBeansOfType(RequestMappingInfoHandlerMapping.class).values()) {
                for (HandlerMethod method : mapping.getHandlerMethods().values()) {
                    interceptor.resolve(method);
                }
            }
        };
    }
}
