package io.github.sluice.spring.boot.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.ReleaseLedger;
import io.github.sluice.webflux.RateLimitedWebFilter;
import io.github.sluice.webflux.SluiceWebFilter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter in a reactive web application on Reactor Netty, from the same {@code sluice.*}
 * properties as the servlet contract ({@code application.yml}): the web filter by path, a
 * {@code key=bean:} resolver, {@code @RateLimited} on an annotated WebFlux controller, permits
 * released exactly once (counted at the store), and the actuator endpoint, health and Micrometer
 * meters as for servlet applications. Both stacks are on the test class path; the property chooses.
 */
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactiveStarterTest.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class ReactiveStarterTest {



    /** The policies' store, behind a ledger of every admission and release; Reactor Netty. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Ledger {
        @Bean
        ReleaseLedger sluiceLedgerStore() {
            return ReleaseLedger.over(ShardedRegistry.builder().build());
        }

        /** Reactor Netty, though Tomcat is on the test class path too (for the servlet tests). */
        @Bean
        NettyReactiveWebServerFactory netty() {
            return new NettyReactiveWebServerFactory();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    ReactiveWebServerApplicationContext context;

    @Autowired
    Enforcer enforcer;

    @Autowired
    SluiceWebFilter webFilter;

    @Autowired
    RateLimitedWebFilter rateLimited;

    @Autowired
    ReleaseLedger ledger;

    @Autowired
    MeterRegistry meters;

    /**
     * Each request on a connection of its own: on Reactor Netty 1.2 with Spring 6.2, a request that
     * follows an unhandled error's 500 on the same keep-alive connection can go unanswered (seen
     * with a plain router function and no Sluice at all), which is not what these tests are about.
     */
    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void reactiveApplication_onNetty_getsTheWebFilter_atTheConfiguredOrder_sharingTheEnforcer() {
        assertTrue(context.getWebServer().getClass().getName().contains("Netty"), context.getWebServer().toString());
        assertEquals(-110, webFilter.getOrder());
        assertEquals(enforcer, webFilter.enforcer());
    }

    @Test
    void webFilter_limitsByPath_withFieldsAndProblemBody() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = get("/hello", "X-Forwarded-For", "ignored");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-ip\""), r.headers().toString());
        }
        HttpResponse<String> denied = get("/hello");
        assertEquals(429, denied.statusCode());
        assertEquals("application/problem+json", denied.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(denied.body().contains("per-ip"), denied.body());
        assertTrue(denied.headers().firstValue("Retry-After").isPresent());
    }

    @Test
    void beanKey_andRateLimited_applyTheirPolicies() throws Exception {
        assertEquals(200, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(200, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(429, get("/tenant", "X-Tenant", "acme").statusCode());
        assertEquals(200, get("/tenant", "X-Tenant", "globex").statusCode());

        assertEquals(200, get("/annotated", "X-Api-Key", "reactive-k").statusCode());
        assertEquals(200, get("/annotated", "X-Api-Key", "reactive-k").statusCode());
        HttpResponse<String> denied = get("/annotated", "X-Api-Key", "reactive-k");
        assertEquals(429, denied.statusCode());
        assertTrue(denied.body().contains("per-key"), denied.body());
    }

    @Test
    void permits_areReleasedOnce_onSuccessAndError() throws Exception {
        for (int i = 0; i < 20; i++) {
            String path = i % 2 == 0 ? "/inflight/slow" : "/inflight/throw";
            int status = get(path, "X-Request-Id", "reactive-" + i).statusCode();
            assertEquals(i % 2 == 0 ? 200 : 500, status, path);
        }
        ledger.awaitBalanced(Duration.ofSeconds(10));
        assertTrue(ledger.admitted("per-request", "reactive-0") == 1, ledger.toString());
    }

    @Test
    void actuator_endpointHealthAndMeters_areThereAsForServletApplications() throws Exception {
        get("/tenant", "X-Tenant", "meters");
        HttpResponse<String> endpoint = get("/actuator/sluice");
        assertEquals(200, endpoint.statusCode(), endpoint.body());
        assertTrue(endpoint.body().contains("per-ip"), endpoint.body());
        HttpResponse<String> health = get("/actuator/health");
        assertTrue(health.body().contains("\"sluice\""), health.body());
        assertTrue(meters.getMeters().stream().anyMatch(m -> m.getId().getName().startsWith("sluice.")),
                "no sluice.* meter");
    }
}
