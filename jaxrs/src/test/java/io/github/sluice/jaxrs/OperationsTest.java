package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.OPTIONS;
import jakarta.ws.rs.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** CORS preflights pass the limits on JAX-RS too, and the feature publishes its enforcer when asked. */
class OperationsTest {

    @Path("/")
    public static class Api {
        @GET
        @Path("api/items")
        public String items() {
            return "items";
        }

        @GET
        @Path("bound")
        @RateLimited("per-ip")
        public String bound() {
            return "bound";
        }

        @OPTIONS
        @Path("bound")
        @RateLimited("per-ip")
        public String boundOptions() {
            return "options";
        }
    }

    private static Enforcer enforcer() {
        return Enforcer.builder().policies("per-ip = fixed-window 2/1m key=global match=/api/*")
                .listener(EnforcementListener.NONE).store(ShardedRegistry.builder().clock(new FakeClock()).build())
                .build();
    }

    @Test
    void optionsPreflights_byPathAndByAnnotation_neitherLimitedNorSpendingTheQuota() throws Exception {
        try (Enforcer e = enforcer();
                JerseyServer server = JerseyServer.start(new ResourceConfig(Api.class).register(new SluiceFeature(e)))) {
            for (int i = 0; i < 5; i++) {
                assertEquals(200, server.raw("OPTIONS", "/api/items", "Origin", "https://example.com",
                        "Access-Control-Request-Method", "GET"));
                assertEquals(200, server.raw("OPTIONS", "/bound"));
            }

            assertEquals(200, server.get("/api/items").statusCode());
            assertEquals(200, server.get("/bound").statusCode());
            assertEquals(429, server.get("/api/items").statusCode());
        }
    }

    @Test
    void publish_givenAConsumer_receivesTheEnforcerUnderItsName() throws Exception {
        Map<String, Object> published = new ConcurrentHashMap<>();
        BiConsumer<String, Object> sink = published::put;
        try (Enforcer e = enforcer();
                JerseyServer server = JerseyServer.start(new ResourceConfig(Api.class).register(new SluiceFeature(e))
                        .property(SluiceFeature.PUBLISH, sink).property(SluiceFeature.NAME, "api"))) {
            assertEquals(200, server.get("/api/items").statusCode());
            assertSame(e, published.get("io.github.sluice.Enforcer.api"));
            assertEquals(1, published.size());
        }
    }

    @Test
    void publish_notAConsumer_failsTheDeploymentNamingTheProperty() {
        try (Enforcer e = enforcer()) {
            RuntimeException x = assertThrows(RuntimeException.class, () -> JerseyServer.start(
                    new ResourceConfig(Api.class).register(new SluiceFeature(e)).property(SluiceFeature.PUBLISH, "oops")));
            Throwable t = x;
            while (t.getCause() != null && !(t instanceof IllegalArgumentException)) {
                t = t.getCause();
            }
            assertTrue(String.valueOf(t.getMessage()).contains("sluice.publish"), String.valueOf(t));
        }
    }
}
