package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.filter.HttpMethodOverrideFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A path policy of the {@code @PreMatching} stage holds however a client spells the path: every
 * spelling Jersey routes to the protected resource method shares the canonical path's quota, on
 * Jetty and on Tomcat (which normalise differently before Jersey sees the URI); spellings that
 * reach no resource or another one are not counted. Requests are sent raw, so that no client
 * library normalises them first.
 */
class PathTest {

    private static final int LIMIT = 3;

    /** Spellings of POST /login that Jersey may route to {@code @POST @Path("login")}. */
    private static final List<String> SAME = List.of(
            "/login/", "/login;jsessionid=x", "/login;x=1/", "/login;x=1;y=2", "/login?x", "/log%69n", "/%6Cogin",
            "//login", "/./login", "/a/../login", "/login/.", "/login//", "/login/%2e", "/login%2F", "/a/%2e%2e/login",
            "/%2e/login", "/x/..;/login", "/;/login", "/login\\", "/login%5C", "/login%00", "/%c0%aelogin");

    /** Paths Jersey routes to no resource or another one. */
    private static final List<String> OTHER = List.of("/LOGIN", "/Login", "/login.json", "/logins", "/login/x",
            "/login%3Bx", "/login%20");

    @Path("/")
    public static class Api {
        @GET
        @Path("login")
        public String form() {
            return "form";
        }

        @POST
        @Path("login")
        public String login() {
            return "welcome";
        }

        @GET
        @Path("reports/{id}")
        public String report(@PathParam("id") String id) {
            return "report " + id;
        }
    }

    private JerseyServer server;

    private JerseyServer start(String container) {
        return start(container, SluiceFeature.PRIORITY, false);
    }

    private JerseyServer start(String container, int priority, boolean methodOverride) {
        ShardedRegistry store = ShardedRegistry.builder().clock(new FakeClock()).build();
        Enforcer enforcer = Enforcer.builder().policies("""
                        login   = fixed-window 3/1m align=first-request key=header:X-Client match=POST:/login
                        reports = fixed-window 3/1m align=first-request key=header:X-Client match=GET:/reports/*
                        """)
                .listener(EnforcementListener.NONE)
                .store(store)
                .build();
        ResourceConfig app = new ResourceConfig(Api.class)
                .register(SluiceFeature.builder().enforcer(enforcer).priority(priority).build());
        if (methodOverride) {
            app.register(HttpMethodOverrideFilter.class);
        }
        Function<ResourceConfig, JerseyServer> starter = container.equals("tomcat")
                ? JerseyServer::startOnTomcat : JerseyServer::start;
        server = starter.apply(app);
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void spellingsOfAPolicedPath_shareItsQuota_orReachNoResource(String container) {
        JerseyServer s = start(container);
        Map<String, Integer> served = new TreeMap<>();
        List<String> escaped = new ArrayList<>();
        int n = 0;
        for (String variant : SAME) {
            String client = "same-" + n++;
            int first = s.raw("POST", variant, "X-Client", client);
            if (first != 200) {
                continue; // refused by the container (400) or routed to no resource (404): never served
            }
            served.put(variant, first);
            // When the spelling is sent LIMIT times, then the canonical path, then the spelling again
            int[] statuses = {first, s.raw("POST", variant, "X-Client", client), s.raw("POST", variant, "X-Client", client),
                s.raw("POST", "/login", "X-Client", client), s.raw("POST", variant, "X-Client", client)};

            // Then the spelling took the canonical path's quota, and the (LIMIT+1)th is refused
            if (!Arrays.equals(statuses, new int[] {200, 200, 200, 429, 429})) {
                escaped.add(variant + " -> " + Arrays.toString(statuses));
            }
        }
        assertTrue(escaped.isEmpty(), container + ": spellings that escaped the limit " + escaped);
        // The attack is real: Jersey serves these spellings from @POST @Path("login")
        assertTrue(served.keySet().containsAll(List.of("/login/", "/login;jsessionid=x", "/login;x=1/", "/login?x")),
                container + " served " + served);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void otherPaths_areNotCounted(String container) {
        JerseyServer s = start(container);
        for (String other : OTHER) {
            String client = "other-" + other;
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(200, s.raw("POST", "/login", "X-Client", client));
            }
            assertEquals(429, s.raw("POST", "/login", "X-Client", client));

            assertEquals(404, s.raw("POST", other, "X-Client", client), other);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void head_isLimitedByAGetPolicy_sharingItsQuota(String container) {
        JerseyServer s = start(container);

        // Jersey serves HEAD with the @GET method: HEAD and GET share the GET policy's quota
        for (int i = 0; i < LIMIT; i++) {
            assertEquals(200, s.raw("GET", "/reports/7", "X-Client", "get-first"));
        }
        assertEquals(429, s.raw("HEAD", "/reports/7", "X-Client", "get-first"));
        for (int i = 0; i < LIMIT; i++) {
            assertEquals(200, s.raw("HEAD", "/reports/7/", "X-Client", "head-first"));
        }
        assertEquals(429, s.raw("GET", "/reports/7", "X-Client", "head-first"));
        assertEquals(200, s.raw("GET", "/login", "X-Client", "head-first"), "another policy's path");
    }

    /**
     * Jersey's method-override filter runs at HEADER_DECORATOR + 50: with Sluice's priority after
     * it (the documented setting), a POST overridden to GET is judged as the GET it becomes.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jetty", "tomcat"})
    void methodOverride_withSluiceAfterTheOverrideFilter_isJudgedByTheMethodThatRuns(String container) {
        JerseyServer s = start(container, Priorities.HEADER_DECORATOR + 100, true);

        for (int i = 0; i < LIMIT; i++) {
            assertEquals(200, s.raw("POST", "/reports/7", "X-Client", "override", "X-HTTP-Method-Override", "GET"));
        }
        assertEquals(429, s.raw("GET", "/reports/7", "X-Client", "override"));
        assertEquals(429, s.raw("POST", "/reports/7", "X-Client", "override", "X-HTTP-Method-Override", "GET"));
    }
}
