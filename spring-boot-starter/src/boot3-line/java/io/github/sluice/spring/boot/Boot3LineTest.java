package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.servlet.SluiceFilter;
import io.github.sluice.spring.boot.actuate.SluiceHealthIndicator;
import io.github.sluice.spring.boot.app.TestApplication;
import java.io.IOException;
import java.net.http.HttpResponse;
import org.apache.catalina.util.ServerInfo;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;

/**
 * The starter's servlet contract ({@link StarterContract}) on an older Boot 3 line than the one it
 * is built against, on that line's default container (Tomcat 10.1): the filter's limits, headers
 * and problem body, {@code @RateLimited}, {@code key=bean:}, exactly-once release under every
 * ending and 2,000 mixed requests, plus the actuator endpoint and health. The same source runs in
 * {@code boot33-tests} and {@code boot34-tests}; each sets {@code expected.spring-boot.version} to the Boot
 * version its POM imports, and this test checks that it is the one running.
 */
@SpringBootTest(classes = {TestApplication.class, StarterContract.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class Boot3LineTest extends StarterContract {

    @Autowired
    ServletWebServerApplicationContext context;

    @Autowired
    @Qualifier(SluiceAutoConfiguration.FILTER_REGISTRATION)
    FilterRegistrationBean<SluiceFilter> registration;

    @Test
    void runsOnTheBootLineUnderTest_onTomcat10_1() {
        String line = System.getProperty("expected.spring-boot.version");
        assertNotNull(line, "the module's POM sets expected.spring-boot.version");
        assertEquals(line, SpringBootVersion.getVersion());
        assertTrue(context.getWebServer().getClass().getName().contains("Tomcat"), context.getWebServer().toString());
        assertTrue(ServerInfo.getServerNumber().startsWith("10.1."), ServerInfo.getServerNumber());
        assertEquals(enforcer, registration.getFilter().enforcer());
    }

    @Test
    void actuatorEndpoint_andHealth_areThere() throws Exception {
        HttpResponse<String> all = get("/actuator/sluice");
        assertEquals(200, all.statusCode(), all.body());
        assertTrue(all.body().contains("fixed-window 3/1h key=ip match=/hello"), all.body());
        assertEquals(SluiceHealthIndicator.class, context.getBean("sluiceHealthIndicator").getClass());
        try {
            enforcer.metrics().storeDegraded("redis", new IOException("connection refused"));
            HttpResponse<String> out = get("/actuator/health/sluice");
            assertEquals(503, out.statusCode(), out.body());
            assertTrue(out.body().contains("\"OUT_OF_SERVICE\""), out.body());
        } finally {
            enforcer.metrics().storeRecovered("redis");
        }
        HttpResponse<String> up = get("/actuator/health/sluice");
        assertEquals(200, up.statusCode(), up.body());
    }
}
