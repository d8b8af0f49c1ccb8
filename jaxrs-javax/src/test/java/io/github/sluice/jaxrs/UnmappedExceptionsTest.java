package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.annotation.Priority;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Priorities;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * JAX-RS 2.1 has no default exception mapper, so on Jersey 2 an exception nobody maps would reach
 * the container without passing the response filters, and the request's permits would never come
 * back. The feature registers the mapper JAX-RS 3.1 requires; these tests pin what that mapper
 * must not change: an application's own {@code ExceptionMapper<Throwable>} still wins, whatever
 * the order of registration or its priority; a {@code WebApplicationException} keeps its status; and the
 * exception, which the container no longer sees, is logged (routine 404s are not).
 */
class UnmappedExceptionsTest {

    private static final String POLICY = "inflight";

    private final Enforcer enforcer = Enforcer.builder()
            .policies(List.of(Policy.builder(POLICY).algorithm(Concurrency.builder().maxInFlight(100).build())
                    .key(KeyResolvers.global()).build()))
            .store(ShardedRegistry.builder().clock(new FakeClock()).build())
            .listener(EnforcementListener.NONE).build();
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Logger log = Logger.getLogger(SluiceFeature.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @Path("/")
    public static class Api {
        @GET
        @Path("fails")
        public String fails() {
            throw new IllegalArgumentException("nobody maps this");
        }

        @GET
        @Path("ok")
        public String ok() {
            return "ok";
        }
    }

    /** An application's catch-all mapper, recognisable by its status. */
    public static class OwnCatchAll implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable e) {
            return Response.status(599).entity("mine: " + e.getMessage()).build();
        }
    }

    /** The same, declared with a priority lower than the default ({@code Priorities.USER}). */
    @Priority(Priorities.USER + 1000)
    public static class OwnLowPriorityCatchAll extends OwnCatchAll {
    }

    @BeforeEach
    void captureLog() {
        log.addHandler(capture);
    }

    @AfterEach
    void release() {
        log.removeHandler(capture);
        enforcer.close();
    }

    @Test
    void needed_onJaxRs21_isTrue() {
        assertTrue(UnmappedExceptions.needed(), "javax.ws.rs 2.1 has no SeBootstrap, and no default mapper");
    }

    @Test
    void unmappedException_answers500_releasesThePermit_andIsLogged() {
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Api.class).register(new SluiceFeature(enforcer)))) {
            HttpResponse<String> r = server.send(server.request("/fails").header("Connection", "close").build());

            assertEquals(500, r.statusCode());
            Permits.awaitHeld(enforcer, POLICY, "global", 0);
            LogRecord warning = logged.stream().filter(l -> l.getLevel() == Level.WARNING).findFirst().orElseThrow(
                    () -> new AssertionError("no warning for the exception: " + logged));
            assertTrue(warning.getThrown() instanceof IllegalArgumentException, String.valueOf(warning.getThrown()));
        }
    }

    @Test
    void notFound_keepsItsStatus_releases_andIsNotLogged() {
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Api.class).register(new SluiceFeature(enforcer)))) {
            for (int i = 0; i < 3; i++) {
                assertEquals(404, server.get("/nothing-here").statusCode());
            }

            Permits.awaitHeld(enforcer, POLICY, "global", 0);
            assertEquals(List.of(), logged.stream().filter(l -> l.getLevel().intValue() >= Level.INFO.intValue()).toList());
        }
    }

    @Test
    void applicationsCatchAll_registeredBeforeTheFeature_wins() {
        assertOwnCatchAllWins(new ResourceConfig(Api.class, OwnCatchAll.class).register(new SluiceFeature(enforcer)));
    }

    @Test
    void applicationsCatchAll_registeredAfterTheFeature_wins() {
        assertOwnCatchAllWins(new ResourceConfig(Api.class).register(new SluiceFeature(enforcer)).register(OwnCatchAll.class));
    }

    @Test
    void applicationsCatchAll_withALowPriority_stillWins() {
        assertOwnCatchAllWins(new ResourceConfig(Api.class, OwnLowPriorityCatchAll.class).register(new SluiceFeature(enforcer)));
    }

    private void assertOwnCatchAllWins(ResourceConfig app) {
        try (JerseyServer server = JerseyServer.start(app)) {
            HttpResponse<String> r = server.get("/fails");

            assertEquals(599, r.statusCode());
            assertEquals("mine: nobody maps this", r.body());
            assertEquals(200, server.get("/ok").statusCode());
            Permits.awaitHeld(enforcer, POLICY, "global", 0);
            assertSame(null, logged.stream().filter(l -> l.getLevel() == Level.WARNING).findFirst().orElse(null));
        }
    }
}
