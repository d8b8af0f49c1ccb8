package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.core.Clock;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;

/** Shaped verdicts: the request waits its delay before the application runs; past the maximum delay it is refused. */
class ShapingTest {

    private static final String POLICY = "paced = shaping 10/1s slack=0 max-delay=250ms key=header:X-Api-Key match=/paced";
    private static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    @Path("/paced")
    public static class Paced {
        @GET
        public String get() {
            EVENTS.add("application");
            return "paced";
        }
    }

    private static Enforcer enforcer() {
        // A frozen clock: every request of one key is scheduled one interval (100 ms) after the previous.
        return Enforcer.builder().policies(POLICY).listener(EnforcementListener.NONE).store(ShardedRegistry.builder().clock(new FakeClock()).build()).build();
    }

    @Test
    void shapedRequests_waitTheirDelayBeforeTheApplication_thenMaxDelayRefuses() throws Exception {
        // Given a feature whose waits are recorded instead of slept
        EVENTS.clear();
        SluiceFeature feature = SluiceFeature.builder().enforcer(enforcer())
                .pause(nanos -> EVENTS.add("wait " + Duration.ofNanos(nanos).toMillis() + " ms")).build();
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Paced.class).register(feature))) {
            // When four requests of one client arrive at the same instant
            List<Integer> statuses = List.of(
                    server.get("/paced", "X-Api-Key", "k").statusCode(),
                    server.get("/paced", "X-Api-Key", "k").statusCode(),
                    server.get("/paced", "X-Api-Key", "k").statusCode(),
                    server.get("/paced", "X-Api-Key", "k").statusCode());

            // Then the first runs at once, the next two after 100 and 200 ms, the fourth (300 ms > 250 ms) is refused
            assertEquals(List.of(200, 200, 200, 429), statuses);
            assertEquals(List.of("application", "wait 100 ms", "application", "wait 200 ms", "application"), EVENTS);
        }
    }

    @Test
    void defaultPause_sleepsTheDelayOnTheRequestThread() throws Exception {
        // Given the default pause, and a client whose first request used its slot
        try (JerseyServer server = JerseyServer.start(new ResourceConfig(Paced.class).register(new SluiceFeature(enforcer())))) {
            assertEquals(200, server.get("/paced", "X-Api-Key", "s").statusCode());

            // When the next request is shaped by 100 ms
            long start = Clock.system().nanos();
            HttpResponse<String> r = server.get("/paced", "X-Api-Key", "s");
            long elapsed = Clock.system().nanos() - start;

            // Then it is answered, no earlier than its slot
            assertEquals(200, r.statusCode());
            assertTrue(elapsed >= Duration.ofMillis(100).toNanos(), "answered after " + elapsed + " ns");
        }
    }

    @Test
    void sleep_interrupted_returnsEarlyAndKeepsTheInterrupt() {
        // Given an interrupted thread
        Thread.currentThread().interrupt();
        long start = Clock.system().nanos();

        // When it is asked to wait a minute
        Pause.SLEEP.await(Duration.ofMinutes(1).toNanos());

        // Then it returns at once, still interrupted (the request proceeds: it holds its slot)
        assertTrue(Clock.system().nanos() - start < Duration.ofSeconds(30).toNanos());
        assertTrue(Thread.interrupted());
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
