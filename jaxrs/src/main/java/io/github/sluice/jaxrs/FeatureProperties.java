package io.github.sluice.jaxrs;

import io.github.sluice.config.ConfigWatch;
import io.github.sluice.config.SluiceConfig;
import io.github.sluice.http.Enforcer;
import jakarta.ws.rs.core.Configuration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the enforcer of a {@link SluiceFeature} registered without one, from the application's
 * configuration properties. In a servlet container the JAX-RS servlet's init-params are such
 * properties, so the settings are those of the Sluice servlet filter, prefixed {@code sluice.}.
 */
final class FeatureProperties {

    /** Jersey's switch that sends exceptions nobody maps to the container without running response filters. */
    static final String JERSEY_STATUS_OVER_SEND_ERROR = "jersey.config.server.response.setStatusOverSendError";

    private FeatureProperties() {
    }

    static Enforcer enforcer(Configuration configuration) {
        Object ready = configuration.getProperty(SluiceFeature.ENFORCER);
        if (ready != null) {
            return instance(ready, Enforcer.class, SluiceFeature.ENFORCER);
        }
        return SluiceConfig.newEnforcer(params(configuration), names(configuration),
                configuration.getProperty(SluiceFeature.STORE), "property '" + SluiceFeature.STORE + "'");
    }

    /**
     * Starts the watch of the {@code config} file, if the properties name one (see
     * {@link ConfigWatch}); it runs while {@code enforcer} is reachable.
     *
     * @return whether a watch runs
     */
    static boolean watch(Enforcer enforcer, Configuration configuration) {
        try {
            return ConfigWatch.start(enforcer, params(configuration), names(configuration)) != null;
        } catch (RuntimeException e) {
            enforcer.close();
            throw e;
        }
    }

    private static List<String> names(Configuration configuration) {
        List<String> names = new ArrayList<>();
        for (String name : configuration.getProperties().keySet()) {
            if (name.startsWith(SluiceFeature.PREFIX) && !name.equals(SluiceFeature.STORE)
                    && !name.equals(SluiceFeature.PUBLISH) && !name.equals(SluiceFeature.NAME)) {
                names.add(name.substring(SluiceFeature.PREFIX.length()));
            }
        }
        return names;
    }

    private static java.util.function.Function<String, String> params(Configuration configuration) {
        Map<String, Object> properties = configuration.getProperties();
        return name -> {
            Object value = properties.get(SluiceFeature.PREFIX + name);
            return value == null ? null : value.toString();
        };
    }

    /** Hands the enforcer to the {@code sluice.publish} consumer, if one is configured. */
    @SuppressWarnings("unchecked")
    static void publish(Configuration configuration, Enforcer enforcer) {
        Object sink = configuration.getProperty(SluiceFeature.PUBLISH);
        if (sink == null) {
            return;
        }
        Object name = configuration.getProperty(SluiceFeature.NAME);
        String n = name == null ? SluiceFeature.DEFAULT_NAME : name.toString().strip();
        if (n.isEmpty()) {
            throw new IllegalArgumentException("property '" + SluiceFeature.NAME + "' must name the enforcer but was blank");
        }
        instance(sink, java.util.function.BiConsumer.class, SluiceFeature.PUBLISH)
                .accept(SluiceFeature.ENFORCER_ATTRIBUTE_PREFIX + n, enforcer);
    }

    /**
     * Warns when the runtime is configured to skip the response filters for exceptions nobody
     * maps: the concurrency permits of those requests would never be released.
     */
    static void warnIfResponseFiltersCanBeSkipped(Configuration configuration) {
        if (Boolean.parseBoolean(String.valueOf(configuration.getProperty(JERSEY_STATUS_OVER_SEND_ERROR)))) {
            System.getLogger(SluiceFeature.class.getName()).log(System.Logger.Level.WARNING,
                    JERSEY_STATUS_OVER_SEND_ERROR + " is true: Jersey then hands exceptions nobody maps to the container "
                    + "without running response filters, and the concurrency permits of those requests are never "
                    + "released; map every exception (an ExceptionMapper<Throwable>) or leave the property unset");
        }
    }

    private static <T> T instance(Object value, Class<T> type, String property) {
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("property '" + property + "' must hold a " + type.getName()
                    + " but held a " + value.getClass().getName());
        }
        return type.cast(value);
    }
}
