package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An adaptive policy enforced by the JAX-RS feature learns how each request ended, on Jersey:
 * an AIMD policy backs off when the resource answers 503 (a drop by default) or its
 * {@code AsyncResponse} times out (503 by the specification), and not when it answers 200. An
 * exception reaches the response filter as its mapped response, so its status is what counts.
 * On a frozen clock the responses are instant: only the drop signal can move the limit, read in
 * the next response's {@code RateLimit-Policy} {@code q}.
 */
class AdaptiveDropTest {

    private static JerseyServer server;
    private static Enforcer enforcer;

    /** Each test uses a policy of its own, matched by its path prefix. */
    @BeforeAll
    static void start() {
        String aimd = " = adaptive aimd min=1 max=100 initial=10 latency=5s samples=5 key=global match=";
        enforcer = Enforcer.builder()
                .policies("unavailable" + aimd + "/a/*\n"
                        + "fine" + aimd + "/b/*\n"
                        + "timeout" + aimd + "/c/*\n"
                        + "ignored" + aimd + "/d/* drop=none\n"
                        + "unmapped" + aimd + "/e/* drop=500\n")
                .store(ShardedRegistry.builder().clock(new FakeClock()).build())
                .listener(EnforcementListener.NONE).build();
        server = JerseyServer.start(new ResourceConfig(Answers.class).register(new SluiceFeature(enforcer)));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        enforcer.close();
    }

    @Path("{group}")
    public static class Answers {
        @GET
        @Path("status/{status}")
        public Response status(@PathParam("status") int status) {
            return Response.status(status).entity("answered").build();
        }

        @GET
        @Path("timeout")
        public void timeout(@Suspended AsyncResponse async) {
            async.setTimeout(50, TimeUnit.MILLISECONDS);
        }

        @GET
        @Path("throw")
        public String fail() {
            throw new IllegalStateException("thrown by the resource on purpose");
        }
    }

    private static long limitAfterFive(String policy, String group, String target) {
        for (int i = 0; i < 5; i++) {
            // An unmapped exception's request goes on a connection of its own (see PermitReleaseTest)
            server.get("/" + group + target, "Connection", "close");
        }
        Permits.awaitHeld(enforcer, policy, "global", 0);
        String field = server.get("/" + group + "/status/200").headers().firstValue("RateLimit-Policy").orElseThrow();
        return Long.parseLong(field.replaceAll(".*;q=([0-9]+).*", "$1"));
    }

    @Test
    void resource503s_backOffTheLimit() {
        assertEquals(9, limitAfterFive("unavailable", "a", "/status/503"));
    }

    @Test
    void resource200s_doNotBackOff() {
        assertEquals(10, limitAfterFive("fine", "b", "/status/200"));
    }

    @Test
    void asyncTimeouts_answer503_andBackOffTheLimit() {
        assertEquals(9, limitAfterFive("timeout", "c", "/timeout"));
    }

    @Test
    void resource503s_withDropNone_doNotBackOff() {
        assertEquals(10, limitAfterFive("ignored", "d", "/status/503"));
    }

    @Test
    void unmappedException_countsByItsMappedStatus() {
        assertEquals(9, limitAfterFive("unmapped", "e", "/throw"));
    }
}
