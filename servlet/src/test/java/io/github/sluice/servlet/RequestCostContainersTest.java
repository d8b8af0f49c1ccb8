package io.github.sluice.servlet;

import org.junit.jupiter.api.Nested;

/** The request-cost contract and its recipes, on both containers. */
class RequestCostContainersTest {

    @Nested
    class OnJetty extends RequestCostContract {
        OnJetty() {
            super(Container.JETTY);
        }
    }

    @Nested
    class OnTomcat extends RequestCostContract {
        OnTomcat() {
            super(Container.TOMCAT);
        }
    }
}
