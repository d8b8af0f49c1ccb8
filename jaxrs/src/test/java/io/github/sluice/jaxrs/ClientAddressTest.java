package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Context;
import java.util.Map;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/**
 * {@code key=ip}: JAX-RS does not tell the client's address; in a servlet container the feature
 * reads it from the servlet request with no configuration (Jetty and Tomcat), an earlier filter
 * may set the request property {@link SluiceFeature#PEER_ADDRESS} instead, or a function may
 * replace both. Without any source, see {@link NoServletApiTest}.
 */
class ClientAddressTest {

    private static final String POLICY = "per-ip = fixed-window 2/1m key=ip match=/hello";

    @Path("/hello")
    public static class Hello {
        @GET
        public String get() {
            return "hello";
        }
    }

    /** The docs' recipe: copy the servlet request's remote address into the request property. */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static class ServletClientAddress implements ContainerRequestFilter {
        @Context
        private HttpServletRequest servletRequest;

        @Override
        public void filter(ContainerRequestContext request) {
            request.setProperty(SluiceFeature.PEER_ADDRESS, servletRequest.getRemoteAddr());
        }
    }

    private static Enforcer enforcer() {
        return Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE)
                .store(ShardedRegistry.builder().clock(new FakeClock()).build()).build();
    }

    @Test
    void peerAddressProperty_fromTheServletRequest_keysByAddress() throws Exception {
        Enforcer enforcer = enforcer();
        ResourceConfig app = new ResourceConfig(Hello.class, ServletClientAddress.class).register(new SluiceFeature(enforcer));
        try (JerseyServer server = JerseyServer.start(app)) {
            // The test client connects from 127.0.0.1: its third call is refused
            assertEquals(200, server.get("/hello").statusCode());
            assertEquals(200, server.get("/hello").statusCode());
            assertEquals(429, server.get("/hello").statusCode());
            // And the key the store holds is that address
            assertEquals(0, Permits.remaining(enforcer, "per-ip", "127.0.0.1"));
        }
    }

    @Test
    void peerAddressFunction_keysByItsAnswer() throws Exception {
        // Given a lookup that reads the address from a header (as a trusted front end might set it)
        SluiceFeature feature = SluiceFeature.builder().enforcer(enforcer())
                .peerAddress(request -> request.getHeaderString("X-Test-Peer")).build();
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Hello.class).register(feature))) {
            // Then each address has its own quota
            assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(429, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(200, server.get("/hello", "X-Test-Peer", "2001:db8::7").statusCode());
        }
    }

    @Test
    void noConfiguration_onJetty_keysByTheServletRequestsAddress_notByUnknown() throws Exception {
        // Given the feature alone: no property, no lookup, the JAX-RS servlet in Jetty
        Enforcer enforcer = enforcer();
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Hello.class).register(new SluiceFeature(enforcer)))) {
            assertKeyedByLoopback(server, enforcer);
        }
    }

    @Test
    void noConfiguration_onTomcat_keysByTheServletRequestsAddress_notByUnknown() throws Exception {
        Enforcer enforcer = enforcer();
        try (JerseyServer server = JerseyServer.startOnTomcat(new ResourceConfig(Hello.class)
                .register(new SluiceFeature(enforcer)))) {
            assertKeyedByLoopback(server, enforcer);
        }
    }

    @Test
    void noConfiguration_featureFromProperties_keysByTheServletRequestsAddress() throws Exception {
        // The feature registered as a class, configured by the Jersey servlet's init-params
        try (JerseyServer server = JerseyServer.start(PropertiesApp.class,
                Map.of("sluice.policies", "per-ip = fixed-window 2/1h align=first-request key=ip match=/hello"))) {
            assertEquals(200, server.get("/hello").statusCode());
            assertEquals(200, server.get("/hello").statusCode());
            assertEquals(429, server.get("/hello").statusCode());
        }
    }

    /** An application that lists the feature as a class: it reads the servlet's init-params. */
    public static class PropertiesApp extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return Set.of(Hello.class, SluiceFeature.class);
        }
    }

    private static void assertKeyedByLoopback(JerseyServer server, Enforcer enforcer) throws Exception {
        // When one client (the test, from 127.0.0.1) calls three times, whatever header it sends
        assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
        assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.2").statusCode());
        assertEquals(429, server.get("/hello", "X-Test-Peer", "192.0.2.3").statusCode());
        // Then its quota is its address's, and no request fell into the shared key 'unknown'
        assertEquals(0, Permits.remaining(enforcer, "per-ip", "127.0.0.1"));
        assertEquals(2, Permits.remaining(enforcer, "per-ip", "unknown"));
    }

    @Test
    void propertySetByAnEarlierFilter_winsOverTheServletRequestsAddress() throws Exception {
        Enforcer enforcer = enforcer();
        ResourceConfig app = new ResourceConfig(Hello.class, HeaderClientAddress.class).register(new SluiceFeature(enforcer));
        try (JerseyServer server = JerseyServer.start(app)) {
            assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(429, server.get("/hello", "X-Test-Peer", "192.0.2.1").statusCode());
            assertEquals(200, server.get("/hello", "X-Test-Peer", "192.0.2.2").statusCode());
            assertEquals(2, Permits.remaining(enforcer, "per-ip", "127.0.0.1"));
        }
    }

    /** An earlier filter that knows better (as a trusted front end's header might tell it). */
    @PreMatching
    @Priority(Priorities.AUTHENTICATION)
    public static class HeaderClientAddress implements ContainerRequestFilter {
        @Override
        public void filter(ContainerRequestContext request) {
            request.setProperty(SluiceFeature.PEER_ADDRESS, request.getHeaderString("X-Test-Peer"));
        }
    }
}
