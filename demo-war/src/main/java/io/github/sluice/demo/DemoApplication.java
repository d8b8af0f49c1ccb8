package io.github.sluice.demo;

import io.github.sluice.jaxrs.SluiceFeature;
import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.config.SluiceConfig;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.Store;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Context;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The JAX-RS application under {@code /api/*}, served by Jersey's servlet bundled in the WAR.
 *
 * <p>The {@link SluiceFeature} reads its policies from the Jersey servlet's init-params in
 * {@code web.xml} ({@code sluice.policies}, {@code sluice.trusted-proxies}); the resources pick
 * their policy by name with {@code @RateLimited}. When {@link DemoStoreListener} has put a Redis
 * store in the servlet context, it is handed to the feature as the {@value SluiceFeature#STORE}
 * property, so the JAX-RS policies live there too. The feature publishes its enforcer in the
 * servlet context ({@value SluiceFeature#PUBLISH}) as {@code io.github.sluice.Enforcer.jaxrs}, where
 * the {@link MetricsServlet} finds it next to the filter's.
 */
public class DemoApplication extends Application {

    private final Map<String, Object> properties;
    private final Enforcer enforcer;

    /**
     * @param servletContext the webapp's context, injected by Jersey
     * @param servletConfig the Jersey servlet's configuration: its {@code sluice.*} init-params
     */
    public DemoApplication(@Context ServletContext servletContext, @Context ServletConfig servletConfig) {
        Object store = servletContext.getAttribute(SluiceFilter.STORE_ATTRIBUTE);
        Map<String, Object> p = new HashMap<>();
        if (store != null) {
            p.put(SluiceFeature.STORE, store);
        }
        // Published next to the filter's enforcer, so that /metrics shows the JAX-RS policies too.
        BiConsumer<String, Object> publish = servletContext::setAttribute;
        p.put(SluiceFeature.PUBLISH, publish);
        this.properties = Map.copyOf(p);
        this.enforcer = enforcer(servletConfig, store);
    }

    /**
     * The JAX-RS policies from the Jersey servlet's {@code sluice.*} init-params, with what only
     * code can give: the plan of an API key ({@code plan=bean:planOf}) and the contracts
     * ({@code override=bean:contractOf}) that the {@code per-plan} policy names.
     */
    private static Enforcer enforcer(ServletConfig config, Object store) {
        List<String> names = new ArrayList<>();
        for (String name : Collections.list(config.getInitParameterNames())) {
            if (name.startsWith(SluiceFeature.PREFIX)) {
                names.add(name.substring(SluiceFeature.PREFIX.length()));
            }
        }
        Enforcer.Builder b = SluiceConfig.fromInitParams(n -> config.getInitParameter(SluiceFeature.PREFIX + n), names)
                .keyResolver("planOf", Plans::planOf)
                .overrideLookup("contractOf", Plans::contractOf);
        if (store != null) {
            b.store((Store) store);
        }
        return b.build();
    }

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(HelloResource.class, SlowResource.class, AdaptiveResource.class, PlanResource.class);
    }

    /**
     * The feature; its policies come from the properties, and the client's address from the
     * servlet request, which the feature reads itself in a servlet container. JAX-RS 3.1 deprecates this method in favour of CDI, but it remains the portable
     * way to register a configured instance in a runtime without CDI, such as this WAR's Jersey.
     */
    @Override
    @SuppressWarnings("deprecation")
    public Set<Object> getSingletons() {
        return Set.of(SluiceFeature.builder().enforcer(enforcer).build());
    }

    @Override
    public Map<String, Object> getProperties() {
        return properties;
    }
}
