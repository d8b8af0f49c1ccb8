package io.github.sluice.spring.boot;

import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.type.MethodMetadata;
import org.springframework.util.ClassUtils;

/**
 * Fails the start-up on a {@code sluice.*} property that is unknown or that configures nothing,
 * naming the property, its value and where it was written; where failing would break a
 * documented use, logs one WARNING instead. Runs once every bean is defined and before any is
 * created, whether or not the rest of the starter is on, so that a typo that leaves Sluice off
 * (such as {@code sluice.polices.per-ip}) is reported too.
 *
 * <p>What it decides for each property is the table in {@code docs/spring-boot.md} section 1:
 * <ul>
 *   <li>a name no property of {@link SluiceProperties} binds: fails, with the nearest known name;
 *   <li>{@code sluice.enabled=false}: one WARNING listing the other properties set (a shared
 *       {@code application.yml} deployed where Sluice is switched off is the switch's purpose);
 *   <li>no policy given (no {@code sluice.policies.<name>}, no {@code sluice.config}, no
 *       {@link Enforcer} bean): every property set fails;
 *   <li>the application's own {@link Enforcer} bean: every property that builds the enforcer fails;
 *   <li>settings of a part that is off or replaced (the config-file watch, the in-memory store,
 *       the Redis store, the degraded header, the filter's registration): fail;
 *   <li>{@code sluice.headers-on} with {@code headers=none}, {@code sluice.forwarded-header}
 *       without trusted proxies, and a {@code sluice.config} file alone that defines no policy:
 *       fail once the enforcer is built ({@link #checkBuilt}), since the file's settings count too;
 *   <li>{@code sluice.filter.url-patterns} in a reactive web application (its web filter sees
 *       every request; policies choose theirs with {@code match=}): fails;
 *   <li>{@code sluice.filter.*} in an application that is neither a servlet nor a reactive web
 *       application (run with {@code spring.main.web-application-type=none}, or a test without
 *       a web environment): one WARNING, since the same {@code application.yml} serves those runs.
 * </ul>
 *
 * <p>Not thread-safe; the context calls it once.
 */
final class SluiceSettingsCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    private static final Log LOG = LogFactory.getLog(SluiceSettingsCheck.class);

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(SluiceProperties.PREFIX);
    private static final ConfigurationPropertyName ENABLED = name("enabled");
    private static final ConfigurationPropertyName FILTER = name("filter");
    private static final ConfigurationPropertyName FILTER_ENABLED = name("filter.enabled");
    private static final ConfigurationPropertyName FILTER_URL_PATTERNS = name("filter.url-patterns");
    /** The reactive filter's bean and its configuration, by name: the class loads only with WebFlux. */
    private static final String WEB_FILTER = "sluiceWebFilter";
    private static final String WEB_FLUX_CONFIGURATION = "io.github.sluice.spring.boot.reactive.SluiceWebFluxAutoConfiguration";
    private static final ConfigurationPropertyName REDIS_URL = name("redis.url");
    private static final ConfigurationPropertyName DEGRADED_HEADER = name("degraded-header");
    private static final ConfigurationPropertyName CONFIG_WATCH = name("config-watch");
    private static final List<ConfigurationPropertyName> WATCH = List.of(CONFIG_WATCH,
            name("config-watch-interval"), name("config-reload"));
    private static final List<ConfigurationPropertyName> IN_MEMORY_STORE = List.of(name("max-keys"),
            name("memory-budget"), name("shards"));

    /** The class whose presence {@code sluice.redis.url} needs. */
    static final String REDIS_STORE = "io.github.sluice.redis.RedisStore";

    private Environment environment;

    SluiceSettingsCheck() {
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    /**
     * Checks the {@code sluice.*} properties against the beans defined.
     *
     * @throws ConfigException if one property is unknown or configures nothing
     * @throws IllegalStateException if several are, each a suppressed {@link ConfigException}
     */
    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) {
        Binder binder = Binder.get(Objects.requireNonNull(environment, "environment"));
        List<ConfigurationProperty> set = new ArrayList<>();
        List<ConfigException> problems = new ArrayList<>();
        SluiceProperties properties = new SluiceProperties();
        try {
            binder.bind(ROOT, Bindable.ofInstance(properties), new NoUnboundElementsBindHandler(new Recorder(set)));
        } catch (BindException e) {
            if (!(e.getCause() instanceof UnboundConfigurationPropertiesException unbound)) {
                throw e;
            }
            for (ConfigurationProperty p : new TreeSet<>(unbound.getUnboundProperties())) {
                problems.add(unknown(p));
            }
        }
        Checks c = new Checks(set, problems);
        if (!properties.isEnabled()) {
            c.warn(p -> !p.getName().equals(ENABLED), "sluice.enabled is false, so Sluice is off and these properties"
                    + " configure nothing (remove sluice.enabled=false to apply them)");
            c.fail();
            return;
        }
        String[] enforcers = beans.getBeanNamesForType(Enforcer.class, true, false);
        boolean policiesGiven = !properties.getPolicies().isEmpty()
                || properties.getConfig() != null && !properties.getConfig().isBlank();
        if (enforcers.length == 0) {
            if (policiesGiven) {
                // The only way here: SluiceAutoConfiguration excluded, Boot's own switch.
                c.warn(p -> true, "Sluice's auto-configuration is excluded, so these properties configure nothing");
            } else {
                c.dead(p -> true, "Sluice is off: no policy is given (set sluice.policies.<name> or sluice.config,"
                        + " or define an Enforcer bean), or remove the property");
            }
            c.fail();
            return;
        }
        String own = null;
        for (String name : enforcers) {
            if (!declaredBy(beans, name, SluiceAutoConfiguration.class)) {
                own = name;
            }
        }
        if (own != null) {
            c.dead(p -> !p.getName().equals(ENABLED) && !FILTER.isAncestorOf(p.getName()), "the application's"
                    + " Enforcer bean '" + own + "' replaces the enforcer the properties build; remove the property,"
                    + " or the bean");
        } else {
            checkWatch(c, properties.getConfig());
            checkStores(c, beans);
        }
        checkFilter(c, beans, properties.getFilter().isEnabled());
        c.fail();
    }

    /**
     * What can be decided only once the enforcer is built, when the {@code sluice.config} file's
     * settings are merged with the properties: a property of a part that the merged settings turn
     * off fails, naming it; so does an enforcer without policies (a file alone that defines none),
     * unless the file is watched, since a policy added to it applies at once and an operator may
     * have emptied it to lift every limit: then one WARNING.
     *
     * @param settings the {@code sluice.*} settings, as {@link SluiceProperties#settings()} names them
     * @param enforcer the enforcer they built
     * @throws ConfigException if a property configures nothing, naming it and its value
     */
    static void checkBuilt(Map<String, String> settings, Enforcer enforcer) {
        HeaderOptions headers = enforcer.headerOptions();
        if (settings.containsKey("headers-on") && headers.style() == HeaderStyle.NONE) {
            throw new ConfigException(SluiceProperties.source("headers-on"), 0, null, "headers-on",
                    settings.get("headers-on"), "configures nothing: headers is none, so no rate-limit header is"
                    + " written (Retry-After is sent on every denial)", null);
        }
        if (settings.containsKey("forwarded-header") && enforcer.clientAddress().trustedProxies().isEmpty()) {
            throw new ConfigException(SluiceProperties.source("forwarded-header"), 0, null, "forwarded-header",
                    settings.get("forwarded-header"), "configures nothing: no trusted-proxies are set, so the client"
                    + " is the TCP peer and no forwarding header is read", null);
        }
        if (!enforcer.policies().isEmpty()) {
            return;
        }
        String config = settings.getOrDefault("config", "").strip();
        boolean watched = !config.isEmpty() && !config.startsWith("classpath:")
                && !"false".equals(settings.getOrDefault("config-watch", "").strip());
        if (!watched) {
            throw new ConfigException(SluiceProperties.source("config"), 0, null, "config", config,
                    "defines no policy, and no sluice.policies.<name> is set: every request would be admitted; add a"
                    + " policy.<name> line, or set sluice.enabled=false", null);
        }
        LOG.warn("Sluice enforces no policy: " + SluiceProperties.source("config") + " '" + config + "' defines none"
                + " and no sluice.policies.<name> is set; every request is admitted until a policy.<name> line is"
                + " added to the file");
    }

    /** The watch of the {@code sluice.config} file: nothing to watch, or switched off. */
    private static void checkWatch(Checks c, String config) {
        if (config == null || config.isBlank()) {
            c.dead(WATCH, "it configures the watch of the sluice.config file, and sluice.config is not set");
        } else if (config.strip().startsWith("classpath:")) {
            c.dead(WATCH, "sluice.config '" + config.strip()
                    + "' is a classpath: resource, part of the application, and never watched");
        } else if (c.value(CONFIG_WATCH) != null && c.value(CONFIG_WATCH).strip().equals("false")) {
            c.dead(p -> WATCH.contains(p.getName()) && !p.getName().equals(CONFIG_WATCH),
                    "sluice.config-watch is false, so the sluice.config file is read once");
        }
    }

    /** The Redis store, the in-memory store and the degraded header, against the stores defined. */
    private static void checkStores(Checks c, ConfigurableListableBeanFactory beans) {
        String[] stores = beans.getBeanNamesForType(Store.class, true, false);
        if (c.value(REDIS_URL) != null) {
            if (!ClassUtils.isPresent(REDIS_STORE, beans.getBeanClassLoader())) {
                c.dead(List.of(REDIS_URL), "sluice-redis is not on the class path; add the dependency"
                        + " io.github.sluice:sluice-redis");
            }
            for (String store : stores) {
                if (!declaredBy(beans, store, SluiceAutoConfiguration.RedisStoreConfiguration.class)) {
                    c.dead(List.of(REDIS_URL), "the application's Store bean '" + store + "' keeps the policies'"
                            + " state instead; remove the property, or the bean");
                }
            }
        }
        if (stores.length > 0) {
            c.dead(IN_MEMORY_STORE, "it configures the in-memory store, but the policies keep their state"
                    + " in the Store bean '" + stores[0] + "'; configure that store instead");
        } else if (c.value(REDIS_URL) == null) {
            c.dead(List.of(DEGRADED_HEADER), "the policies keep their state in memory, which is never degraded;"
                    + " the header applies with a shared store (sluice.redis.url or a Store bean)");
        }
    }

    /** The filter's registration: off, replaced, the reactive filter, or no web application. */
    private static void checkFilter(Checks c, ConfigurableListableBeanFactory beans, boolean enabled) {
        String registration = SluiceAutoConfiguration.FILTER_REGISTRATION;
        Predicate<ConfigurationProperty> filter = p -> FILTER.isAncestorOf(p.getName());
        if (!enabled) {
            c.dead(filter.and(p -> !p.getName().equals(FILTER_ENABLED)),
                    "sluice.filter.enabled is false, so no filter is registered");
        } else if (beans.containsBeanDefinition(registration)) {
            if (!declaredBy(beans, registration, SluiceAutoConfiguration.FilterConfiguration.class)) {
                c.dead(filter, "the application's bean '" + registration + "' registers the filter instead;"
                        + " remove the property, or the bean");
            }
        } else if (beans.containsBeanDefinition(WEB_FILTER)) {
            if (!declaredBy(beans, WEB_FILTER, WEB_FLUX_CONFIGURATION)) {
                c.dead(filter, "the application's bean '" + WEB_FILTER + "' is the web filter instead;"
                        + " remove the property, or the bean");
            }
            c.dead(p -> FILTER_URL_PATTERNS.equals(p.getName()) || FILTER_URL_PATTERNS.isAncestorOf(p.getName()),
                    "a reactive application's web filter sees every request; choose requests with each policy's"
                    + " match=");
        } else {
            c.warn(filter, "this is not a servlet or reactive web application, so no filter is registered and these"
                    + " properties configure nothing");
        }
    }

    /** Whether a bean is defined by a {@code @Bean} method of the given class. */
    private static boolean declaredBy(ConfigurableListableBeanFactory beans, String name, Class<?> type) {
        return declaredBy(beans, name, type.getName());
    }

    /** Whether a bean is defined by a {@code @Bean} method of the class of the given name. */
    private static boolean declaredBy(ConfigurableListableBeanFactory beans, String name, String type) {
        if (!beans.containsBeanDefinition(name)) {
            return false;
        }
        BeanDefinition d = beans.getBeanDefinition(name);
        MethodMetadata m = d instanceof AnnotatedBeanDefinition a ? a.getFactoryMethodMetadata() : null;
        return m != null && m.getDeclaringClassName().equals(type);
    }

    private static ConfigException unknown(ConfigurationProperty p) {
        String name = p.getName().toString();
        String near = SluicePropertyNames.nearest(name);
        return new ConfigException(source(p), 0, null, parameter(p), String.valueOf(p.getValue()),
                "unknown property" + (near == null ? "; known properties: " + SluicePropertyNames.known() : "; did you mean '" + near + "'?"),
                null);
    }

    private static ConfigurationPropertyName name(String suffix) {
        return ConfigurationPropertyName.of(SluiceProperties.PREFIX + "." + suffix);
    }

    /** {@code property 'sluice.x'}, with where it was written when known. */
    private static String source(ConfigurationProperty p) {
        return "property '" + p.getName() + "'" + (p.getOrigin() == null ? "" : " (" + p.getOrigin() + ")");
    }

    private static String parameter(ConfigurationProperty p) {
        return p.getName().toString().substring(SluiceProperties.PREFIX.length() + 1);
    }

    /** The properties set, and what is found wrong with them. */
    private static final class Checks {
        private final List<ConfigurationProperty> set;
        private final List<ConfigException> problems;

        Checks(List<ConfigurationProperty> set, List<ConfigException> problems) {
            this.set = set;
            this.problems = problems;
        }

        /** The value of a property as written, or {@code null} if it is not set. */
        String value(ConfigurationPropertyName name) {
            for (ConfigurationProperty p : set) {
                if (p.getName().equals(name)) {
                    return String.valueOf(p.getValue());
                }
            }
            return null;
        }

        /** Each property set that matches configures nothing, for the reason given. */
        void dead(Predicate<ConfigurationProperty> which, String reason) {
            for (ConfigurationProperty p : set) {
                if (which.test(p)) {
                    problems.add(new ConfigException(source(p), 0, null, parameter(p), String.valueOf(p.getValue()),
                            "configures nothing: " + reason, null));
                }
            }
        }

        /** Each of these properties that is set configures nothing, for the reason given. */
        void dead(List<ConfigurationPropertyName> names, String reason) {
            dead(p -> names.contains(p.getName()), reason);
        }

        /** One WARNING naming every property set that matches, if any. */
        void warn(Predicate<ConfigurationProperty> which, String reason) {
            List<String> ignored = new ArrayList<>();
            for (ConfigurationProperty p : set) {
                if (which.test(p)) {
                    ignored.add(p.getName() + "=" + p.getValue());
                }
            }
            if (!ignored.isEmpty()) {
                LOG.warn(reason + ": " + String.join(", ", ignored));
            }
        }

        /** Throws what was found: one {@link ConfigException}, or several in one exception. */
        void fail() {
            if (problems.size() == 1) {
                throw problems.get(0);
            }
            if (!problems.isEmpty()) {
                StringBuilder b = new StringBuilder(problems.size() + " sluice.* properties are unknown or configure"
                        + " nothing:");
                problems.forEach(p -> b.append("\n  ").append(p.getMessage()));
                IllegalStateException e = new IllegalStateException(b.toString());
                problems.forEach(e::addSuppressed);
                throw e;
            }
        }
    }

    /** Records every property bound, with its value and origin. */
    private static final class Recorder extends AbstractBindHandler {
        private final List<ConfigurationProperty> bound;

        Recorder(List<ConfigurationProperty> bound) {
            this.bound = bound;
        }

        @Override
        public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result) {
            ConfigurationProperty p = context.getConfigurationProperty();
            // An empty value counts as not set, as SluiceProperties says (sluice.redis.url=${REDIS_URL:}).
            if (p != null && !String.valueOf(p.getValue()).isBlank() && !bound.contains(p)) {
                bound.add(p);
            }
            return super.onSuccess(name, target, context, result);
        }
    }
}
