package io.github.sluice.spring.boot.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.health.SluiceHealthIndicator;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.SpringVersion;
import reactor.netty.http.server.HttpServer;

/**
 * {@link ReactiveStarterContract} on Boot 4.0: the starter's reactive auto-configuration (the web
 * filter, {@code @RateLimited} on WebFlux handlers, the actuator endpoint, Boot 4.0's health API,
 * Micrometer) with Spring Framework 7 and Reactor Netty 1.3. The servlet stack is on the test class
 * path too; the property chooses.
 */
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactiveStarterContract.Ledger.class,
    ReactiveBoot4Test.OnNetty.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class ReactiveBoot4Test extends ReactiveStarterContract {

    @Autowired
    ReactiveWebServerApplicationContext context;

    @Override
    protected Object webServer() {
        return context.getWebServer();
    }

    @Test
    void runsOnBoot4_0_springFramework7_reactorNetty1_3() {
        assertTrue(SpringBootVersion.getVersion().startsWith("4.0."), SpringBootVersion.getVersion());
        assertTrue(SpringVersion.getVersion().startsWith("7.0."), SpringVersion.getVersion());
        String netty = HttpServer.class.getPackage().getImplementationVersion();
        assertTrue(netty != null && netty.startsWith("1.3."), "Reactor Netty " + netty);
    }

    @Test
    void health_isTheBoot4Contributor() {
        assertEquals(SluiceHealthIndicator.class, context.getBean("sluiceHealthIndicator").getClass());
    }

    /** Reactor Netty, though Jetty is on the test class path too (for the servlet tests). */
    @TestConfiguration(proxyBeanMethods = false)
    static class OnNetty {
        @Bean
        NettyReactiveWebServerFactory netty() {
            return new NettyReactiveWebServerFactory();
        }
    }
}
