package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.SecurityContext;
import java.net.http.HttpResponse;
import java.security.Principal;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Policies named by {@link RateLimited} on resource methods and classes, over real HTTP. */
class RateLimitedTest {

    private static JerseyServer server;

    /**
     * A stand-in for an application's authentication filter: the user named by {@code X-User}
     * becomes the request's principal. It runs at {@link Priorities#AUTHENTICATION}, before Sluice.
     */
    @Priority(Priorities.AUTHENTICATION)
    public static final class TestUsers implements ContainerRequestFilter {

        @Override
        public void filter(ContainerRequestContext request) {
            String user = request.getHeaderString("X-User");
            if (user == null) {
                return;
            }
            Principal principal = () -> user;
            request.setSecurityContext(new SecurityContext() {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return false;
                }

                @Override
                public boolean isSecure() {
                    return false;
                }

                @Override
                public String getAuthenticationScheme() {
                    return "test";
                }
            });
        }
    }

    @Path("/reports")
    public static class Reports {
        @GET
        @Path("export")
        @RateLimited("per-user")
        public String export() {
            return "export";
        }

        @GET
        @Path("bulk")
        @RateLimited(value = "per-user", cost = 2)
        public String bulk() {
            return "bulk";
        }

        @GET
        @Path("list")
        public String list() {
            return "list";
        }
    }

    @Path("/search")
    @RateLimited("per-key")
    public static class Search {
        @GET
        public String search() {
            return "search";
        }

        @GET
        @Path("deep")
        @RateLimited(value = "per-key", cost = 3)
        public String deep() {
            return "deep";
        }
    }

    @BeforeAll
    static void start() {
        // Policies matching no path: they apply only where a resource names them.
        ShardedRegistry store = ShardedRegistry.builder().clock(new FakeClock()).build();
        Enforcer enforcer = Enforcer.builder()
                .policies("""
                        per-user = fixed-window 5/1m key=principal match=none
                        per-key  = fixed-window 4/1m key=header:X-Api-Key match=none
                        """)
                .listener(EnforcementListener.NONE)
                .store(store)
                .build();
        ResourceConfig app = new ResourceConfig(Reports.class, Search.class, TestUsers.class)
                .register(new SluiceFeature(enforcer));
        server = JerseyServer.start(app);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void annotatedMethod_keyFromPrincipal_limitsEachUser() {
        // Given alice used her 5 exports
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = server.get("/reports/export", "X-User", "alice");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-user\";r=" + (4 - i) + ";"));
        }

        // When alice and bob export
        HttpResponse<String> alice = server.get("/reports/export", "X-User", "alice");
        HttpResponse<String> bob = server.get("/reports/export", "X-User", "bob");

        // Then alice is refused with a problem body, bob is not
        assertEquals(429, alice.statusCode());
        assertTrue(alice.body().contains("\"violated-policies\":[\"per-user\"]"), alice.body());
        assertTrue(alice.headers().firstValue("Retry-After").isPresent());
        assertEquals(200, bob.statusCode());
    }

    @Test
    void costGreaterThanOne_takesThatManyPermits() {
        // Given a limit of 5 and a method that costs 2
        HttpResponse<String> first = server.get("/reports/bulk", "X-User", "carol");
        HttpResponse<String> second = server.get("/reports/bulk", "X-User", "carol");
        HttpResponse<String> third = server.get("/reports/bulk", "X-User", "carol");

        // Then the quota drops by 2 each time, and a request needing 2 of the 1 left is refused
        assertTrue(first.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-user\";r=3;"));
        assertTrue(second.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-user\";r=1;"));
        assertEquals(429, third.statusCode());
        // And the last permit is still there for a request of cost 1
        assertEquals(200, server.get("/reports/export", "X-User", "carol").statusCode());
        assertEquals(429, server.get("/reports/export", "X-User", "carol").statusCode());
    }

    @Test
    void unannotatedMethod_isNotLimited_andCarriesNoHeaders() {
        for (int i = 0; i < 8; i++) {
            HttpResponse<String> r = server.get("/reports/list", "X-User", "dave");
            assertEquals(200, r.statusCode());
            assertFalse(r.headers().firstValue("RateLimit").isPresent(), r.headers().map().toString());
        }
    }

    @Test
    void unauthenticated_principalPolicyDoesNotApply() {
        // No principal, no key: the policy does not apply (authentication is the application's job)
        for (int i = 0; i < 8; i++) {
            HttpResponse<String> r = server.get("/reports/export");
            assertEquals(200, r.statusCode());
            assertFalse(r.headers().firstValue("RateLimit").isPresent());
        }
    }

    @Test
    void annotatedClass_keyFromHeader_sharedByItsMethods_methodAnnotationReplacesCost() {
        // Given the class limit of 4 per API key; deep() costs 3
        HttpResponse<String> search = server.get("/search", "X-Api-Key", "k-1");
        HttpResponse<String> deep = server.get("/search/deep", "X-Api-Key", "k-1");
        HttpResponse<String> again = server.get("/search", "X-Api-Key", "k-1");
        HttpResponse<String> other = server.get("/search", "X-Api-Key", "k-2");

        // Then both methods draw on one quota per key
        assertTrue(search.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-key\";r=3;"));
        assertTrue(deep.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-key\";r=0;"));
        assertEquals(429, again.statusCode());
        assertEquals(200, other.statusCode());
    }
}
