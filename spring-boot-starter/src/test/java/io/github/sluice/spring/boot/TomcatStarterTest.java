package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.spring.boot.app.TestApplication;
import java.net.http.HttpResponse;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;

/**
 * The starter on Tomcat, Boot's default container, plus what the container does not change: the
 * filter's registration, the actuator endpoint, health and metrics.
 */
@SpringBootTest(classes = {TestApplication.class, StarterContract.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TomcatStarterTest extends StarterContract {

    @Autowired
    ServletWebServerApplicationContext context;

    @Autowired
    @Qualifier(SluiceAutoConfiguration.FILTER_REGISTRATION)
    FilterRegistrationBean<SluiceFilter> registration;

    @Test
    void container_isTomcat() {
        assertTrue(context.getWebServer().getClass().getName().contains("Tomcat"), context.getWebServer().toString());
        assertTrue(Tomcat.class.getPackage().getImplementationVersion() == null
                || Tomcat.class.getPackage().getImplementationVersion().startsWith("10.1."));
    }

    @Test
    void filterRegistration_isAsyncSupported_beforeSpringSecurity() {
        assertTrue(registration.isAsyncSupported());
        assertEquals(-110, registration.getOrder());
        assertTrue(registration.getOrder() < -100, "before Spring Security's DEFAULT_FILTER_ORDER (-100)");
        assertEquals(enforcer, registration.getFilter().enforcer());
        // No public getter in Boot 3.5: the field the registration hands to the container.
        assertEquals(java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST, jakarta.servlet.DispatcherType.ASYNC),
                org.springframework.test.util.ReflectionTestUtils.getField(registration, "dispatcherTypes"));
        assertEquals(java.util.Set.of("/*"), new java.util.HashSet<>(registration.getUrlPatterns()));
    }

    @Test
    void actuatorEndpoint_listsEveryPolicyAsConfigured_withItsCounters() throws Exception {
        get("/annotated", "X-Api-Key", "actuator-a");
        HttpResponse<String> all = get("/actuator/sluice");
        assertEquals(200, all.statusCode(), all.body());
        for (String text : new String[] {"\"per-ip\"", "fixed-window 3/1h key=ip match=/hello",
            "fixed-window 2/1h key=bean:tenantResolver match=/tenant", "\"inflight\"", "\"counters\"",
            "\"allowed\"", "\"denied\"", "\"inFlight\""}) {
            assertTrue(all.body().contains(text), text + " missing from " + all.body());
        }
        HttpResponse<String> one = get("/actuator/sluice/per-key");
        assertEquals(200, one.statusCode(), one.body());
        assertTrue(one.body().contains("key=header:X-Api-Key|ip match=none"), one.body());
        assertEquals(404, get("/actuator/sluice/no-such-policy").statusCode());
    }

    @Test
    void health_inMemoryStore_isUp() throws Exception {
        HttpResponse<String> health = get("/actuator/health/sluice");
        assertEquals(200, health.statusCode(), health.body());
        assertTrue(health.body().contains("\"UP\""), health.body());
    }

    @Test
    void micrometer_sluiceMeters_areBound() throws Exception {
        get("/annotated", "X-Api-Key", "metrics-a");
        HttpResponse<String> names = get("/actuator/metrics");
        assertTrue(names.body().contains("sluice.decisions") || names.body().contains("sluice."), names.body());
        HttpResponse<String> inflight = get("/actuator/metrics/sluice.concurrency.in.flight");
        assertEquals(200, inflight.statusCode(), inflight.body());
        assertTrue(inflight.body().contains("inflight"), inflight.body());
    }
}
