package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Initialisation from init-params fails at startup, naming the parameter and the value. */
class SluiceFilterInitTest {

    @Test
    void init_misspeltInitParam_failsNamingIt() {
        // Given an init-param name that is not a setting
        SluiceFilter filter = new SluiceFilter();
        FilterConfig config = config(Map.of("policies", "a = fixed-window 1/1m key=ip", "trusted-proxy", "10.0.0.0/8"),
                null);

        // When the container initialises the filter, then it refuses to start, saying why
        ServletException e = assertThrows(ServletException.class, () -> filter.init(config));
        assertTrue(e.getMessage().startsWith("Sluice filter 'sluice': "), e.getMessage());
        assertTrue(e.getMessage().contains("trusted-proxy"), e.getMessage());
    }

    @Test
    void init_invalidPolicy_failsNamingTheParameterAndValue() {
        SluiceFilter filter = new SluiceFilter();
        FilterConfig config = config(Map.of("policies", "a = token-bucket 10/1m burst=0 key=ip"), null);

        ServletException e = assertThrows(ServletException.class, () -> filter.init(config));

        assertTrue(e.getMessage().contains("burst"), e.getMessage());
        assertTrue(e.getMessage().contains("0"), e.getMessage());
    }

    @Test
    void init_invalidShapingMode_failsNamingIt() {
        SluiceFilter filter = new SluiceFilter();
        FilterConfig config = config(Map.of("policies", "a = fixed-window 1/1m key=ip", "shaping", "sleep"), null);

        ServletException e = assertThrows(ServletException.class, () -> filter.init(config));

        assertEquals("Sluice filter 'sluice': init-param 'shaping' must be async or blocking but was 'sleep'",
                e.getMessage());
    }

    @Test
    void init_storeAttributeOfTheWrongType_fails() {
        SluiceFilter filter = new SluiceFilter();
        FilterConfig config = config(Map.of("policies", "a = fixed-window 1/1m key=ip"), "redis://localhost");

        ServletException e = assertThrows(ServletException.class, () -> filter.init(config));

        assertTrue(e.getMessage().contains(SluiceFilter.STORE_ATTRIBUTE), e.getMessage());
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    }

    @Test
    void init_storeAttributeAndAnInMemorySetting_failsNamingBoth() {
        // Given a store in the servlet context, and an init-param that only the in-memory store reads
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            SluiceFilter filter = new SluiceFilter();
            FilterConfig config = config(Map.of("policies", "a = fixed-window 1/1m key=ip", "memory-budget", "1g"),
                    store);

            // When the filter is initialised, then it refuses the setting that would configure nothing
            ServletException e = assertThrows(ServletException.class, () -> filter.init(config));
            assertEquals("Sluice filter 'sluice': init-param 'memory-budget': memory-budget='1g': memory-budget "
                    + "configures the in-memory store, but servlet context attribute '" + SluiceFilter.STORE_ATTRIBUTE
                    + "' holds a store of its own (" + store + "); remove memory-budget", e.getMessage());
        }
    }

    @Test
    void init_storeAttribute_isWhereThePoliciesLive() throws Exception {
        // Given a store in the servlet context
        Store store = ShardedRegistry.builder().build();
        SluiceFilter filter = new SluiceFilter();

        // When the filter is initialised from init-params
        filter.init(config(Map.of("policies", "a = fixed-window 1/1m key=ip", "listener", "none"), store));

        // Then its enforcer uses that store, which the filter does not own
        assertSame(store, filter.enforcer().store());
        filter.destroy();
    }

    @Test
    void init_withAnEnforcer_ignoresInitParams() throws Exception {
        // Given a filter built in code
        Enforcer enforcer = Enforcer.builder().policies("a = fixed-window 1/1m key=ip").build();
        SluiceFilter filter = new SluiceFilter(enforcer, Shaping.BLOCKING);

        // When the container initialises it with parameters it would otherwise reject
        filter.init(config(Map.of("no-such-setting", "x"), null));

        // Then it keeps its enforcer
        assertSame(enforcer, filter.enforcer());
        assertNotNull(filter.toString());
        filter.destroy();
        enforcer.close();
    }

    @Test
    void constructor_null_isRefused() {
        assertThrows(NullPointerException.class, () -> new SluiceFilter(null));
        Enforcer enforcer = Enforcer.builder().build();
        assertThrows(NullPointerException.class, () -> new SluiceFilter(enforcer, null));
    }

    @Test
    void init_publishesTheEnforcerUnderTheFiltersName_andDestroyWithdrawsIt() throws Exception {
        // Given a filter configured by init-params, and one built in code
        SluiceFilter fromParams = new SluiceFilter();
        FilterConfig config = config(Map.of("policies", "a = fixed-window 1/1m key=ip", "listener", "none"), null);
        Enforcer enforcer = Enforcer.builder().policies("b = fixed-window 1/1m key=ip").build();
        SluiceFilter inCode = new SluiceFilter(enforcer);
        FilterConfig other = config(Map.of(), null, "other");

        // When the container initialises them
        fromParams.init(config);
        inCode.init(other);

        // Then each enforcer is in its servlet context under the prefix and the filter's name
        assertSame(fromParams.enforcer(), config.getServletContext().getAttribute("io.github.sluice.Enforcer.sluice"));
        assertSame(enforcer, other.getServletContext().getAttribute(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX + "other"));

        // And when they are destroyed, nothing is left to hold a closed enforcer
        fromParams.destroy();
        inCode.destroy();
        assertNull(config.getServletContext().getAttribute("io.github.sluice.Enforcer.sluice"));
        assertNull(other.getServletContext().getAttribute(SluiceFilter.ENFORCER_ATTRIBUTE_PREFIX + "other"));
        enforcer.close();
    }

    private static FilterConfig config(Map<String, String> params, Object store) {
        return config(params, store, "sluice");
    }

    /** A FilterConfig over a map, with a ServletContext that holds attributes (the store's, if given). */
    private static FilterConfig config(Map<String, String> params, Object store, String filterName) {
        Map<String, String> copy = new HashMap<>(params);
        Map<String, Object> attributes = new HashMap<>();
        if (store != null) {
            attributes.put(SluiceFilter.STORE_ATTRIBUTE, store);
        }
        ServletContext context = (ServletContext) Proxy.newProxyInstance(SluiceFilterInitTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getAttribute":
                            return attributes.get((String) args[0]);
                        case "setAttribute":
                            attributes.put((String) args[0], args[1]);
                            return null;
                        case "removeAttribute":
                            attributes.remove((String) args[0]);
                            return null;
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
        return new FilterConfig() {
            @Override
            public String getFilterName() {
                return filterName;
            }

            @Override
            public ServletContext getServletContext() {
                return context;
            }

            @Override
            public String getInitParameter(String name) {
                return copy.get(name);
            }

            @Override
            public java.util.Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(copy.keySet());
            }
        };
    }
}
