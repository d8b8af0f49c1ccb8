package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Counting by outcome through the JAX-RS feature on Jersey: the status the response filter sees
 * (the resource's, its exception mapper's, the default 500 of an unmapped exception, the 503 of an
 * async timeout, an async resume's) keeps or refunds the reservation, before the response filter
 * writes {@code RateLimit}, which shows it; a body whose write fails changes nothing. Each test has a policy of its own (3 per hour, by path prefix), and a roomy
 * concurrency policy listed after it: once its permit is back, the reservation is settled.
 */
class OutcomeCountingTest {

    private static JerseyServer server;
    private static Enforcer enforcer;

    @BeforeAll
    static void start() {
        String login = " = fixed-window 3/1h key=global match=";
        enforcer = Enforcer.builder()
                .policies("sync" + login + "/a/* count=401\n"
                        + "mapped" + login + "/b/* count=401\n"
                        + "unmapped" + login + "/c/* count=5xx\n"
                        + "unmapped-401" + login + "/d/* count=401\n"
                        + "timeout" + login + "/e/* skip=5xx\n"
                        + "resumed" + login + "/f/* count=401\n"
                        + "hangup" + login + "/g/* count=401\n"
                        + "header" + login + "/h/* count=401\n"
                        + "inflight = concurrency 100 key=global\n")
                .store(ShardedRegistry.builder().clock(new FakeClock()).build())
                .listener(EnforcementListener.NONE).build();
        server = JerseyServer.start(new ResourceConfig(Answers.class, Refusals.class).register(new SluiceFeature(enforcer)));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        enforcer.close();
    }

    /** Maps the application's own exception to 401, as an authentication layer would. */
    public static final class Refusals implements ExceptionMapper<SecurityException> {
        @Override
        public Response toResponse(SecurityException e) {
            return Response.status(401).entity("wrong password").build();
        }
    }

    @Path("{group}")
    public static class Answers {
        @GET
        @Path("status/{status}")
        public Response status(@PathParam("status") int status) {
            return Response.status(status).entity("answered").build();
        }

        @GET
        @Path("refuse")
        public String refuse() {
            throw new SecurityException("wrong password");
        }

        @GET
        @Path("not-authorized")
        public String notAuthorized() {
            throw new NotAuthorizedException("Basic");
        }

        @GET
        @Path("throw")
        public String fail() {
            throw new IllegalStateException("thrown by the resource on purpose");
        }

        @GET
        @Path("timeout")
        public void timeout(@Suspended AsyncResponse async) {
            async.setTimeout(50, TimeUnit.MILLISECONDS);
        }

        @GET
        @Path("resume/{status}")
        public void resume(@PathParam("status") int status, @Suspended AsyncResponse async) {
            CompletableFuture.runAsync(() -> async.resume(Response.status(status).entity("resumed").build()));
        }

        @GET
        @Path("flood")
        public Response flood() {
            StreamingOutput body = (OutputStream out) -> {
                byte[] chunk = new byte[16 * 1024];
                for (int i = 0; i < 4096; i++) {
                    out.write(chunk);
                    out.flush();
                }
            };
            return Response.status(401).entity(body).build();
        }
    }

    private static long charged(String policy) {
        Permits.awaitHeld(enforcer, "inflight", "global", 0);
        return Permits.held(enforcer, policy, "global");
    }

    @Test
    void resourceStatuses_rightOnesNeverSpend_theFourthAfterThreeWrongIsRefused() {
        for (int i = 0; i < 10; i++) {
            assertEquals(200, server.get("/a/status/200").statusCode());
        }
        assertEquals(0, charged("sync"));
        for (int i = 0; i < 3; i++) {
            assertEquals(401, server.get("/a/status/401").statusCode());
        }
        assertEquals(3, charged("sync"));
        assertEquals(429, server.get("/a/status/200").statusCode());
    }

    @Test
    void rateLimitHeader_showsTheOutcome() {
        // A right password's header shows its permit back, a wrong one's shows it charged
        assertHeader("/h/status/200", "\"header\";r=3;t=3600");
        assertHeader("/h/status/401", "\"header\";r=2;t=3600");
        assertHeader("/h/status/200", "\"header\";r=2;t=3600");
        assertEquals(1, charged("header"));
    }

    private static void assertHeader(String path, String member) {
        String field = server.get(path).headers().firstValue("RateLimit").orElseThrow();
        assertTrue(field.contains(member), field);
    }

    @Test
    void exceptionsMappedTo401_areCharged() {
        assertEquals(401, server.get("/b/refuse").statusCode());
        assertEquals(401, server.get("/b/not-authorized").statusCode());
        assertEquals(2, charged("mapped"));
    }

    @Test
    void unmappedException_countsAs500() {
        // An unmapped exception's request goes on a connection of its own (see PermitReleaseTest)
        assertEquals(500, server.get("/c/throw", "Connection", "close").statusCode());
        assertEquals(1, charged("unmapped"));
        assertEquals(500, server.get("/d/throw", "Connection", "close").statusCode());
        assertEquals(0, charged("unmapped-401"));
    }

    @Test
    void asyncTimeout_answers503_notChargedUnderSkip5xx() {
        assertEquals(503, server.get("/e/timeout").statusCode());
        assertEquals(0, charged("timeout"));
        assertEquals(200, server.get("/e/status/200").statusCode());
        assertEquals(1, charged("timeout"));
    }

    @Test
    void asyncResume_countsItsStatus() {
        assertEquals(200, server.get("/f/resume/200").statusCode());
        assertEquals(0, charged("resumed"));
        assertEquals(401, server.get("/f/resume/401").statusCode());
        assertEquals(1, charged("resumed"));
    }

    @Test
    void clientHangsUpMidBody_keepsTheReservation() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /g/flood HTTP/1.1\r\nHost: test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            assertTrue(in.read(new byte[1024]) > 0);
        }
        assertEquals(1, charged("hangup"));
    }
}
