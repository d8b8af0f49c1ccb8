package io.github.sluice.gateway;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.core.SpringVersion;

/**
 * This module runs the gateway module's own tests ({@link GatewayTest}: real routes to a real
 * backend, the starter's reactive auto-configuration, 2,000 mixed proxied requests) on Spring Boot
 * 4.0 with Spring Cloud 2025.1; this test checks that it really does, so that a dependency change
 * cannot quietly bring Boot 3.5 or Gateway 4.3 back.
 */
class GatewayBoot4Test {

    @Test
    void classPath_isBoot4_0_springFramework7_gateway5_0() {
        assertTrue(SpringBootVersion.getVersion().startsWith("4.0."), SpringBootVersion.getVersion());
        assertTrue(SpringVersion.getVersion().startsWith("7.0."), SpringVersion.getVersion());
        String gateway = RateLimiter.class.getPackage().getImplementationVersion();
        assertTrue(gateway != null && gateway.startsWith("5.0."), "Spring Cloud Gateway " + gateway);
    }
}
