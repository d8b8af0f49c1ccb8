package io.github.sluice.spring.boot;

import io.github.sluice.config.ConfigWatch;
import io.github.sluice.config.SluiceConfig;
import io.github.sluice.http.DenialBody;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.OverrideLookup;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.redis.RedisStore;
import io.github.sluice.servlet.Shaping;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.store.Store;
import jakarta.servlet.DispatcherType;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Configures Sluice from {@code sluice.*} when policies are given ({@link ConditionalOnSluicePolicies}:
 * a {@code sluice.policies.<name>}, a {@code sluice.config} file, or an {@link Enforcer} bean): the
 * {@link Enforcer} and, in a servlet web application, the {@link SluiceFilter}. The default
 * listener ({@code sluice.listener=log}) logs the enforcer's {@linkplain Enforcer#description()
 * description} at INFO when it is built.
 *
 * <h2>Beans an application may define instead</h2>
 * <ul>
 *   <li>{@link Enforcer}: replaces everything built from the properties (the filter and
 *       {@code @RateLimited} then apply it).
 *   <li>{@link Store}: the policies keep their state there (a {@link RedisStore} is defined when
 *       {@code sluice.redis.url} is set and {@code sluice-redis} is on the class path). The
 *       application context closes it; the enforcer does not. Build it with the
 *       {@link SluiceStoreEvents} bean as its listener so that its health is reported.
 *   <li>{@link OverrideLookup} beans: each is registered under its bean name, for policies with
 *       {@code override=bean:<name>} (per-customer contract limits);
 *   <li>{@link KeyResolver} beans: each is registered under its bean name, for policies keyed
 *       {@code key=bean:<name>}.
 *   <li>{@link io.github.sluice.policy.CostFunction} beans: each is registered under its bean
 *       name, for policies whose cost is {@code cost=bean:<name>}.
 *   <li>{@link DenialBody}: the body of every denial, instead of the problem document (it cannot be
 *       combined with {@code sluice.denial-body} or {@code sluice.problem-type}).
 *   <li>a bean named {@value #FILTER_REGISTRATION}: the filter's registration.
 * </ul>
 *
 * <p>Every error in the properties fails the start-up with a message naming the property and the
 * value, as {@link SluiceConfig} words it for init-params; so does a property that configures
 * nothing ({@link SluiceSettingsAutoConfiguration}).
 */
@AutoConfiguration
@ConditionalOnSluicePolicies
@EnableConfigurationProperties(SluiceProperties.class)
public class SluiceAutoConfiguration {

    /** The name of the filter's {@link FilterRegistrationBean}. */
    public static final String FILTER_REGISTRATION = "sluiceFilterRegistration";

    /** Creates the configuration; Boot does. */
    public SluiceAutoConfiguration() {
    }

    /**
     * The enforcer the properties describe, with the application's store, key resolvers and
     * denial body if it defines them.
     *
     * @param properties the {@code sluice.*} properties
     * @param store the application's store, if any
     * @param beans the bean factory, for the {@link KeyResolver} beans by name
     * @param denialBody the application's denial body, if any
     * @param storeEvents the store events listener, connected to the enforcer's metrics here
     * @return the enforcer, closed with the context
     * @throws ConfigException if a property is invalid; the message names it and its value
     * @throws IllegalArgumentException if a policy's {@code key=bean:<name>} names no
     *     {@link KeyResolver} bean, or the enforcer cannot be built
     * @throws IllegalStateException if a {@link DenialBody} bean and a denial property are both
     *     set, or a store is defined together with settings of the in-memory store
     * @throws ConfigException if a property configures nothing given what the {@code sluice.config}
     *     file sets too, or no policy results and the file is not watched
     *     ({@link SluiceSettingsCheck#checkBuilt})
     */
    @Bean
    @ConditionalOnMissingBean
    public Enforcer sluiceEnforcer(SluiceProperties properties, ObjectProvider<Store> store,
            ListableBeanFactory beans, ObjectProvider<DenialBody> denialBody, SluiceStoreEvents storeEvents) {
        Map<String, String> settings = properties.settings();
        Enforcer.Builder b = SluiceConfig.fromSettings(settings, SluiceProperties::source);
        beans.getBeansOfType(KeyResolver.class).forEach(b::keyResolver);
        beans.getBeansOfType(OverrideLookup.class).forEach(b::overrideLookup);
        beans.getBeansOfType(io.github.sluice.policy.CostFunction.class).forEach(b::costFunction);
        DenialBody body = denialBody.getIfUnique();
        if (body != null) {
            for (String name : new String[] {"denial-body", "problem-type", "denial-content-type"}) {
                if (settings.containsKey(name)) {
                    throw new IllegalStateException(SluiceProperties.source(name) + " and the DenialBody bean "
                            + body + " both define the denial body; remove one");
                }
            }
            b.denialBody(body);
        }
        Store given = store.getIfUnique();
        if (given != null) {
            b.store(given);
        }
        Enforcer enforcer = b.build();
        try {
            SluiceSettingsCheck.checkBuilt(settings, enforcer);
        } catch (RuntimeException e) {
            enforcer.close();
            throw e;
        }
        storeEvents.connect(enforcer);
        return enforcer;
    }

    /**
     * Watches the {@code sluice.config} file, when it names one (not a {@code classpath:}
     * resource) and {@code sluice.config-watch} is not {@code false}: edits are applied to the
     * running enforcer ({@link ConfigWatch}); a version with an error is refused, logged, and the
     * policies in force stay. Stopped when the context closes.
     *
     * @param enforcer the enforcer the file configures
     * @param properties the bound {@code sluice.*} settings
     * @return the running watch, or {@code null} if there is nothing to watch
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(prefix = SluiceProperties.PREFIX, name = "config")
    public ConfigWatch sluiceConfigWatch(Enforcer enforcer, SluiceProperties properties) {
        Map<String, String> settings = properties.settings();
        return ConfigWatch.start(enforcer, settings::get, settings.keySet());
    }

    /**
     * The listener a shared store is built with, so that its events reach the enforcer's counts
     * and the health contributor.
     *
     * @return the listener, connected to the enforcer when that is built
     */
    @Bean
    @ConditionalOnMissingBean
    public SluiceStoreEvents sluiceStoreEvents() {
        return new SluiceStoreEvents();
    }

    /** The servlet filter, registered as the class description of {@link SluiceProperties.Filter} says. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(FilterRegistrationBean.class)
    @ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", matchIfMissing = true)
    static class FilterConfiguration {

        @Bean(name = FILTER_REGISTRATION)
        @ConditionalOnMissingBean(name = FILTER_REGISTRATION)
        FilterRegistrationBean<SluiceFilter> sluiceFilterRegistration(Enforcer enforcer, SluiceProperties properties) {
            SluiceProperties.Filter f = properties.getFilter();
            Shaping shaping = switch (f.getShaping() == null ? "async" : f.getShaping().strip()) {
                case "async" -> Shaping.ASYNC;
                case "blocking" -> Shaping.BLOCKING;
                default -> throw new ConfigException("property 'sluice.filter.shaping'", 0, null, "shaping",
                        f.getShaping(), "shaping must be async or blocking", null);
            };
            FilterRegistrationBean<SluiceFilter> r = new FilterRegistrationBean<>(new SluiceFilter(enforcer, shaping));
            r.setName("sluice");
            r.setAsyncSupported(true);
            r.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ASYNC);
            r.setOrder(f.getOrder());
            r.setUrlPatterns(f.getUrlPatterns());
            return r;
        }
    }

    /** A {@link RedisStore} from {@code sluice.redis.url}, unless the application defines a store. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.github.sluice.redis.RedisStore")
    @ConditionalOnProperty(prefix = "sluice.redis", name = "url")
    static class RedisStoreConfiguration {

        @Bean
        @ConditionalOnMissingBean(Store.class)
        RedisStore sluiceRedisStore(SluiceProperties properties, SluiceStoreEvents storeEvents) {
            String url = properties.getRedis().getUrl().strip();
            try {
                return RedisStore.builder().uri(url).listener(storeEvents).build();
            } catch (IllegalArgumentException e) {
                throw new ConfigException("property 'sluice.redis.url'", 0, null, "url", url, e.getMessage(), e);
            }
        }
    }
}
