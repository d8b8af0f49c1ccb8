package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.MutableDecision;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** Where the feature finds its policies: init-params, a properties file, properties holding a store or an enforcer. */
class ConfigurationTest {

    private static final String POLICY = "per-key = token-bucket 2/1h key=header:X-Api-Key match=/api/*";

    @Path("/api")
    public static class Api {
        @GET
        public String get() {
            return "api";
        }
    }

    /** The application a web.xml names; its settings come from the servlet's init-params. */
    public static class WebXmlApp extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Api.class, SluiceFeature.class);
        }
    }

    /** The portable registration: the feature as a class, the enforcer as an application property. */
    public static class PortableApp extends Application {
        static volatile Enforcer enforcer;

        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Api.class, SluiceFeature.class);
        }

        @Override
        public Map<String, Object> getProperties() {
            return Map.of(SluiceFeature.ENFORCER, enforcer);
        }
    }

    @Path("/limited")
    public static class Misnamed {
        @GET
        @RateLimited("no-such-policy")
        public String get() {
            return "never deployed";
        }
    }

    @Test
    void servletInitParams_sameSettingsAsTheServletFilter_prefixed() throws Exception {
        // Given the feature registered as a class, configured only by the Jersey servlet's init-params
        Map<String, String> params = Map.of("sluice.policies", POLICY, "sluice.listener", "none");
        try (JerseyServer server = JerseyServer.start(WebXmlApp.class, params)) {
            // Then the policy is enforced
            assertEquals(200, server.get("/api", "X-Api-Key", "a").statusCode());
            assertEquals(200, server.get("/api", "X-Api-Key", "a").statusCode());
            assertEquals(429, server.get("/api", "X-Api-Key", "a").statusCode());
        }
    }

    @Test
    void servletInitParam_config_readsAPropertiesFileFromTheClassPath() throws Exception {
        Map<String, String> params = Map.of("sluice.config", "classpath:sluice-jaxrs-test.properties",
                "sluice.listener", "none");
        try (JerseyServer server = JerseyServer.start(WebXmlApp.class, params)) {
            HttpResponse<String> r = server.get("/api", "X-Api-Key", "b");
            // The file's policy applies, with the file's header style (draft-06 triple)
            assertEquals("2", r.headers().firstValue("RateLimit-Limit").orElseThrow());
            assertEquals("1", r.headers().firstValue("RateLimit-Remaining").orElseThrow());
        }
    }

    @Test
    void applicationProperties_enforcer_isUsedByTheFeatureClass() throws Exception {
        // Given an Application that lists the feature class and hands it an enforcer as a property
        Enforcer enforcer = Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE)
                .store(ShardedRegistry.builder().clock(new FakeClock()).build()).build();
        PortableApp.enforcer = enforcer;
        try (JerseyServer server = JerseyServer.start(PortableApp.class, Map.of())) {
            // Then that enforcer decides
            assertEquals(200, server.get("/api", "X-Api-Key", "p").statusCode());
            assertEquals(1, Permits.remaining(enforcer, "per-key", "p"));
        }
    }

    @Test
    void misspeltSetting_failsTheDeployment_namingIt() {
        Map<String, String> params = Map.of("sluice.polices", POLICY);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> JerseyServer.start(WebXmlApp.class, params));
        assertTrue(causes(e).contains("polices"), causes(e));
    }

    @Test
    void unknownPolicyInRateLimited_failsTheDeployment_namingTheMethod() {
        Enforcer enforcer = Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE).build();
        ResourceConfig app = new ResourceConfig(Misnamed.class).register(new SluiceFeature(enforcer));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> JerseyServer.start(app));
        assertTrue(causes(e).contains("unknown policy 'no-such-policy'"), causes(e));
        assertTrue(causes(e).contains("Misnamed.get"), causes(e));
    }

    @Test
    void storeProperty_decisionsLiveInTheGivenStore() throws Exception {
        // Given an application property holding the store (a Redis store in production)
        ShardedRegistry store = ShardedRegistry.builder().clock(new FakeClock()).build();
        ResourceConfig app = new ResourceConfig(Api.class, SluiceFeature.class)
                .property("sluice.policies", POLICY)
                .property("sluice.listener", "none")
                .property(SluiceFeature.STORE, store);
        try (JerseyServer server = JerseyServer.start(app)) {
            // When a client calls once
            assertEquals(200, server.get("/api", "X-Api-Key", "c").statusCode());

            // Then its permit was taken from that store
            MutableDecision peek = new MutableDecision();
            store.keySpace("per-key", Policy.parse(POLICY).algorithm()).acquire("c", 0, peek);
            assertEquals(1, peek.remaining());
        }
    }

    @Test
    void enforcerProperty_isUsedAsIs() {
        Enforcer enforcer = Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE).build();
        ResourceConfig app = new ResourceConfig().property(SluiceFeature.ENFORCER, enforcer);
        assertSame(enforcer, FeatureProperties.enforcer(app.getConfiguration()));
        ResourceConfig wrong = new ResourceConfig().property(SluiceFeature.STORE, "redis://localhost");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FeatureProperties.enforcer(wrong.getConfiguration()));
        assertTrue(e.getMessage().contains("'sluice.store' must hold a io.github.sluice.store.Store"), e.getMessage());
    }

    @Test
    void storeProperty_andAnInMemorySetting_failNamingBoth() {
        try (ShardedRegistry store = ShardedRegistry.builder().build()) {
            ResourceConfig app = new ResourceConfig().property(SluiceFeature.STORE, store)
                    .property(SluiceFeature.PREFIX + "policies", POLICY)
                    .property(SluiceFeature.PREFIX + "shards", "4");

            ConfigException e = assertThrows(ConfigException.class,
                    () -> FeatureProperties.enforcer(app.getConfiguration()));

            assertEquals("init-param 'shards': shards='4': shards configures the in-memory store, but property '"
                    + SluiceFeature.STORE + "' holds a store of its own (" + store + "); remove shards", e.getMessage());
        }
    }

    private static String causes(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append(" <- ");
            for (Throwable s : t.getSuppressed()) {
                b.append(causes(s));
            }
        }
        return b.toString();
    }
}
