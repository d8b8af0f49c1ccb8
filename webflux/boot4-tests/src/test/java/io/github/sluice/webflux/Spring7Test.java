package io.github.sluice.webflux;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.eclipse.jetty.util.Jetty;
import org.junit.jupiter.api.Test;
import org.springframework.core.SpringVersion;
import org.springframework.http.HttpHeaders;
import org.springframework.util.MultiValueMap;
import reactor.netty.http.server.HttpServer;

/**
 * This module runs the adapter's own tests (the contract on Reactor Netty and on Jetty, {@link
 * HeaderLinesTest}) on what Boot 4.0 manages; this test checks that it really does, so that a
 * dependency change cannot quietly bring Spring 6 back.
 */
class Spring7Test {

    @Test
    void classPath_isSpring7_reactorNetty1_3_jetty12_1() {
        assertTrue(SpringVersion.getVersion().startsWith("7.0."), SpringVersion.getVersion());
        String netty = HttpServer.class.getPackage().getImplementationVersion();
        assertTrue(netty != null && netty.startsWith("1.3."), "Reactor Netty " + netty);
        assertTrue(Jetty.VERSION.startsWith("12.1."), Jetty.VERSION);
    }

    @Test
    void httpHeaders_isNoLongerAMultiValueMap_theChangeHeaderLinesBridges() {
        Object headers = new HttpHeaders();
        assertFalse(headers instanceof MultiValueMap<?, ?>);
    }
}
