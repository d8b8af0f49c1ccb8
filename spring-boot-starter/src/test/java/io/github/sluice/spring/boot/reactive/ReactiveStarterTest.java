package io.github.sluice.spring.boot.reactive;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * {@link ReactiveStarterContract} on Boot 3.5 and Reactor Netty 1.2. Both stacks are on the test
 * class path; the property chooses.
 */
@SpringBootTest(classes = {ReactiveTestApplication.class, ReactiveStarterContract.Ledger.class,
    ReactiveStarterTest.OnNetty.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class ReactiveStarterTest extends ReactiveStarterContract {

    @Autowired
    ReactiveWebServerApplicationContext context;

    @Override
    protected Object webServer() {
        return context.getWebServer();
    }

    /** Reactor Netty, though Tomcat is on the test class path too (for the servlet tests). */
    @TestConfiguration(proxyBeanMethods = false)
    static class OnNetty {
        @Bean
        NettyReactiveWebServerFactory netty() {
            return new NettyReactiveWebServerFactory();
        }
    }
}
