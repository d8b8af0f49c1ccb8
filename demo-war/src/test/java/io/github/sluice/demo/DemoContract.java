package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo's contract (issue 7), checked against the built WAR deployed into a real container.
 * Each subclass deploys {@code target/sluice-demo.war} into one container on a free port.
 *
 * <p>The container serves every test of a class, and the policies keep their state between
 * tests: each test therefore uses client addresses (sent as {@code X-Forwarded-For} from
 * loopback, which the demo trusts) and API keys of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DemoContract {

    private Http http;

    /**
     * Deploys the WAR at the root context on a free loopback port.
     *
     * @return the base URI, e.g. {@code http://127.0.0.1:41234/}
     */
    abstract URI deploy(Path war) throws Exception;

    /** Stops the container. */
    abstract void undeploy() throws Exception;

    @BeforeAll
    final void start() throws Exception {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war"));
        assertTrue(Files.isRegularFile(war), "the WAR must be built before the integration tests: " + war);
        http = new Http(deploy(war));
    }

    @AfterAll
    final void stop() throws Exception {
        undeploy();
    }

    @Test
    void health_isNeverLimited() throws Exception {
        // Given a client far over every limit's quota
        for (int i = 0; i < 20; i++) {
            // When it calls /health
            HttpResponse<String> r = http.get("health", "X-Forwarded-For", "192.0.2.1");

            // Then it is answered, and no policy is announced
            assertEquals(200, r.statusCode());
            assertEquals("ok\n", r.body());
            assertNull(Http.header(r, "RateLimit"));
            assertNull(Http.header(r, "RateLimit-Policy"));
        }
    }
}
