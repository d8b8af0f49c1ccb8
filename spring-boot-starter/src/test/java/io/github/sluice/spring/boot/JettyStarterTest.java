package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.JettyStarterTest.OnJetty;
import io.github.sluice.spring.boot.app.TestApplication;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter on Jetty 12.0 (Boot 3.5's Jetty): the same contract as on Tomcat. Both containers
 * are on the test class path; a {@link JettyServletWebServerFactory} bean makes Boot choose Jetty.
 */
@SpringBootTest(classes = {TestApplication.class, OnJetty.class, StarterContract.Ledger.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class JettyStarterTest extends StarterContract {

    @Autowired
    ServletWebServerApplicationContext context;

    @Test
    void container_isJetty12_0() {
        assertTrue(context.getWebServer().getClass().getName().contains("Jetty"), context.getWebServer().toString());
        assertTrue(Server.getVersion().startsWith("12.0."), Server.getVersion());
    }

    /** Jetty instead of Tomcat. */
    @TestConfiguration(proxyBeanMethods = false)
    static class OnJetty {
        @Bean
        JettyServletWebServerFactory jetty() {
            return new JettyServletWebServerFactory();
        }
    }
}
