package io.github.sluice.spring.boot.web;

import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.Match;
import io.github.sluice.policy.Policy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfoHandlerMapping;

/**
 * {@link RateLimited} on Spring MVC handlers: registers the {@link RateLimitedInterceptor} and, once
 * every singleton exists, resolves the annotation of every handler method of every request
 * mapping, so that an unknown policy name fails the start-up, and warns of {@code match=none}
 * policies that no annotation names.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluicePolicies
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(WebMvcConfigurer.class)
@ConditionalOnBean(Enforcer.class)
public class SluiceWebMvcAutoConfiguration {

    private static final Log LOG = LogFactory.getLog(SluiceWebMvcAutoConfiguration.class);

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
     * Resolves every handler method's annotation at start-up, and logs one WARNING naming the
     * {@code match=none} policies that no {@code @RateLimited} names: such a policy applies to no
     * request. Not a failure, since the application may still apply it itself
     * ({@link Enforcer#select}).
     *
     * @param interceptor the interceptor
     * @param enforcer the enforcer whose policies the annotations name
     * @param beans the bean factory, for the request mappings
     * @return the check, run after every singleton is created
     */
    @Bean
    public SmartInitializingSingleton sluiceRateLimitedCheck(RateLimitedInterceptor interceptor, Enforcer enforcer,
            ListableBeanFactory beans) {
        return () -> {
            Set<String> named = new HashSet<>();
            for (RequestMappingInfoHandlerMapping mapping
                    : beans.getBeansOfType(RequestMappingInfoHandlerMapping.class).values()) {
                for (HandlerMethod method : mapping.getHandlerMethods().values()) {
                    interceptor.resolve(method);
                    RateLimited a = AnnotatedElementUtils.findMergedAnnotation(method.getMethod(), RateLimited.class);
                    if (a == null) {
                        a = AnnotatedElementUtils.findMergedAnnotation(method.getBeanType(), RateLimited.class);
                    }
                    if (a != null) {
                        named.addAll(Arrays.asList(a.value()));
                    }
                }
            }
            List<String> unused = new ArrayList<>();
            for (Policy p : enforcer.policies()) {
                if (Match.NONE.equals(p.match()) && !named.contains(p.name())) {
                    unused.add(p.name());
                }
            }
            if (!unused.isEmpty()) {
                LOG.warn("Sluice policies " + unused + " are match=none and no @RateLimited handler names them: they"
                        + " apply to no request unless the application selects them itself (Enforcer.select)");
            }
        };
    }
}
