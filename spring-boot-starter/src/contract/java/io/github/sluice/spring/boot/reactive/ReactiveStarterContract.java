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
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The starter in a reactive web application on Reactor Netty, from the same {@code sluice.*}
 * properties as the servlet contract ({@code application.yml}): the web filter by path, a
 * {@code key=bean:} resolver, {@code @RateLimited} on an annotated WebFlux controller, permits
 * released exactly once (counted at the store), and the actuator endpoint, health and Micrometer
 * meters as for servlet applications. One contract for every Boot generation; each subclass is a
 * {@code @SpringBootTest} of {@link ReactiveTestApplication} and {@link Ledger} with
 * {@code spring.main.web-application-type=reactive} that chooses Reactor Netty (the class names
 * of Boot's web server classes differ between generations).
 */
public abstract class ReactiveStarterContract {

    /** The policies' store, behind a ledger of every admission and release. */
    @TestConfiguration(proxyBeanMethods = false)
    public static class Ledger {
        @Bean
        ReleaseLedger sluiceLedgerStore() {
            return ReleaseLedger.over(ShardedRegistry.builder().build());
        }
    }

    @LocalServerPort
    int port;

    /** @return the running web server (Boot's class for it moved in 4.0) */
    protected abstract Object webServer();

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
        assertTrue(webServer().getClass().getName().contains("Netty"), webServer().toString());
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
