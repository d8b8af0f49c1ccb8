package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.spring.boot.SluiceAutoConfiguration;
import io.github.sluice.spring.boot.TomcatBoot4Test.OnTomcat;
import io.github.sluice.spring.boot.app.TestApplication;
import io.github.sluice.spring.boot.health.SluiceHealthIndicator;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.apache.catalina.util.ServerInfo;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.test.util.ReflectionTestUtils;

/**
 * The starter on Boot 4.0's default container, Tomcat 11, plus what the container does not change:
 * the filter's registration, the actuator endpoint, health (from Boot 4.0's relocated health API)
 * and metrics. Both containers are on the test class path, and Boot 4.0 (whose Tomcat and Jetty
 * support are separate modules) does not prefer Tomcat then: a {@link TomcatServletWebServerFactory}
 * bean chooses it.
 */
@SpringBootTest(classes = {TestApplication.class, OnTomcat.class, StarterContract.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TomcatBoot4Test extends StarterContract {

    @Autowired
    ServletWebServerApplicationContext context;

    @Autowired
    @Qualifier(SluiceAutoConfiguration.FILTER_REGISTRATION)
    FilterRegistrationBean<SluiceFilter> registration;

    @Test
    void runsOnBoot4_0_andTomcat11() {
        assertTrue(SpringBootVersion.getVersion().startsWith("4.0."), SpringBootVersion.getVersion());
        assertTrue(context.getWebServer().getClass().getName().contains("Tomcat"), context.getWebServer().toString());
        assertTrue(ServerInfo.getServerNumber().startsWith("11.0."), ServerInfo.getServerNumber());
    }

    @Test
    void filterRegistration_isAsyncSupported_beforeSpringSecurity() {
        assertTrue(registration.isAsyncSupported());
        assertEquals(-110, registration.getOrder());
        assertEquals(enforcer, registration.getFilter().enforcer());
        assertEquals(EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC),
                ReflectionTestUtils.getField(registration, "dispatcherTypes"));
        assertEquals(Set.of("/*"), new HashSet<>(registration.getUrlPatterns()));
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

    /**
     * Boot 4.0 moved the health API to {@code org.springframework.boot.health}: the contributor
     * must come from the starter's Boot 4 configuration (the Boot 3 one must stay out, its classes
     * do not exist here), report UP, OUT_OF_SERVICE (503) while a store is degraded, and UP again.
     */
    @Test
    void health_isTheBoot4Contributor_upThenOutOfServiceWhileAStoreIsDegraded() throws Exception {
        assertEquals(SluiceHealthIndicator.class, context.getBean("sluiceHealthIndicator").getClass());
        assertFalse(context.containsBean("io.github.sluice.spring.boot.actuate.SluiceHealthAutoConfiguration"));
        HttpResponse<String> up = get("/actuator/health/sluice");
        assertEquals(200, up.statusCode(), up.body());
        assertTrue(up.body().contains("\"UP\""), up.body());
        try {
            enforcer.metrics().storeDegraded("redis", new IOException("connection refused"));
            HttpResponse<String> out = get("/actuator/health/sluice");
            assertEquals(503, out.statusCode(), out.body());
            assertTrue(out.body().contains("\"OUT_OF_SERVICE\""), out.body());
            assertTrue(out.body().contains("\"degradations\":1"), out.body());
        } finally {
            enforcer.metrics().storeRecovered("redis");
        }
        HttpResponse<String> again = get("/actuator/health/sluice");
        assertEquals(200, again.statusCode(), again.body());
        assertTrue(again.body().contains("\"UP\""), again.body());
    }

    @Test
    void micrometer_sluiceMeters_areBound() throws Exception {
        get("/annotated", "X-Api-Key", "metrics-a");
        HttpResponse<String> inflight = get("/actuator/metrics/sluice.concurrency.in.flight");
        assertEquals(200, inflight.statusCode(), inflight.body());
        assertTrue(inflight.body().contains("inflight"), inflight.body());
    }

    /** Tomcat, though Jetty is on the class path too. */
    @TestConfiguration(proxyBeanMethods = false)
    static class OnTomcat {
        @Bean
        TomcatServletWebServerFactory tomcat() {
            return new TomcatServletWebServerFactory();
        }
    }
}
