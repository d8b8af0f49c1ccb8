package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.algorithm.Concurrency;
import io.github.sluice.algorithm.TokenBucket;
import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Rate;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.Store;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Registration in web.xml: the test webapp ({@code src/test/webapp/WEB-INF/web.xml}) deployed as
 * a webapp, with filters configured by init-params and a store handed over by a listener.
 */
abstract class WebXmlContract extends ContainerContract {

    WebXmlContract(Container container) {
        super(container);
    }

    @Test
    void webXml_inlinePolicies_limitAndAnnotate_inTheListenersStore() throws Exception {
        // Given the webapp whose "sluice" filter is the README's: 100 per minute per address, 50 in flight
        RunningServer server = startWebapp(Container.TEST_WEBAPP);

        // When 101 requests arrive at once (the store's clock is frozen)
        HttpResponse<String> first = Http.get(server.uri("/api/ok"));
        for (int i = 0; i < 99; i++) {
            assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
        }
        HttpResponse<String> denied = Http.get(server.uri("/api/ok"));

        // Then the quota passes with headers and the next one is refused with a problem document
        assertEquals(200, first.statusCode());
        assertEquals("\"per-ip\";q=100;w=60, \"inflight\";q=50;qu=\"concurrent-requests\"",
                first.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("\"inflight\";r=49, \"per-ip\";r=99;t=1", first.headers().firstValue("RateLimit").orElseThrow());
        assertEquals(429, denied.statusCode());
        assertEquals("1", denied.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(denied.body().contains("\"violated-policies\":[\"per-ip\"]"), denied.body());
        // ...and the state lives in the store the listener put in the servlet context
        Store store = (Store) server.context().getAttribute(SluiceFilter.STORE_ATTRIBUTE);
        MutableDecision peek = new MutableDecision();
        store.keySpace("per-ip", TokenBucket.builder().rate(Rate.perMinute(100)).burst(100).build())
                .acquire("127.0.0.1", 0, peek);
        assertEquals(0, peek.remaining());
        // ...where every concurrency permit has come back
        KeySpace inflight = store.keySpace("inflight", Concurrency.builder().maxInFlight(50).build());
        long deadline = Clock.system().nanos() + TimeUnit.SECONDS.toNanos(10);
        do {
            inflight.acquire(KeyResolvers.GLOBAL, 0, peek);
        } while (peek.remaining() != 50 && Clock.system().nanos() < deadline);
        assertEquals(50, peek.remaining());
    }

    @Test
    void webXml_configFromTheClassPath_appliesItsPoliciesAndBody() throws Exception {
        // Given the webapp whose "sluice-from-file" filter reads classpath:sluice-file.properties
        RunningServer server = startWebapp(Container.TEST_WEBAPP);

        // When one API key calls twice
        HttpResponse<String> first = Http.get(server.uri("/file/ok"), "X-Api-Key", "k1");
        HttpResponse<String> second = Http.get(server.uri("/file/ok"), "X-Api-Key", "k1");

        // Then the file's policy, header style and body apply; of the other filter, only the
        // policy without a match (inflight) applies to /file/*
        assertEquals(200, first.statusCode());
        assertEquals("1", first.headers().firstValue("X-RateLimit-Limit").orElseThrow());
        assertEquals("\"inflight\";q=50;qu=\"concurrent-requests\"",
                first.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals(429, second.statusCode());
        assertEquals("Too many requests for this API key.", second.body());
    }
}
