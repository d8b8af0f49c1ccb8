package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.spring.boot.app.TestApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The {@code sluice} endpoint's key operations on Boot 4.0 over real HTTP (copied from the Boot 3.5 tests): a key's state is read without
 * consuming anything, and a reset is possible only when the endpoint's access is unrestricted.
 */
class ActuatorKeysBoot4Test {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    static HttpResponse<String> send(int port, String method, String path) throws IOException, InterruptedException {
        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).method(method, HttpRequest.BodyPublishers.noBody()).build();
        return CLIENT.send(r, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Boot's default for this endpoint: read-only (said explicitly, which also gives this class a
     * context of its own: the cached one of the other tests has spent this client's quota).
     */
    @Nested
    @SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = "management.endpoint.sluice.access=read-only")
    class ReadOnly {
        @LocalServerPort
        int port;

        @Test
        void keyState_isReadWithoutConsuming_andResetIsNotExposed() throws Exception {
            assertEquals(200, send(port, "GET", "/hello").statusCode());
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> state = send(port, "GET", "/actuator/sluice/per-ip/127.0.0.1");
                assertEquals(200, state.statusCode(), state.body());
                assertTrue(state.body().contains("\"remaining\":2"), "reading consumes nothing: " + state.body());
                assertTrue(state.body().contains("\"limit\":3"), state.body());
            }
            HttpResponse<String> reset = send(port, "DELETE", "/actuator/sluice/per-ip/127.0.0.1");
            assertTrue(reset.statusCode() == 405 || reset.statusCode() == 404,
                    "a reset needs management.endpoint.sluice.access=unrestricted: " + reset.statusCode() + " " + reset.body());
            assertEquals(404, send(port, "GET", "/actuator/sluice/no-such-policy/127.0.0.1").statusCode());
            HttpResponse<String> after = send(port, "GET", "/actuator/sluice/per-ip/127.0.0.1");
            assertTrue(after.body().contains("\"remaining\":2"), "the refused reset changed nothing: " + after.body());

            // A refused client is among per-ip's top refused clients (the sluicetop endpoint)
            for (int i = 0; i < 3; i++) {
                send(port, "GET", "/hello");
            }
            HttpResponse<String> top = send(port, "GET", "/actuator/sluicetop?policy=per-ip&by=denied&period=5m");
            assertEquals(200, top.statusCode(), top.body());
            assertTrue(top.body().contains("{\"key\":\"127.0.0.1\",\"count\":"), top.body());
            assertEquals(400, send(port, "GET", "/actuator/sluicetop?policy=per-ip&by=denied&period=1h").statusCode());
            assertEquals(404, send(port, "GET", "/actuator/sluicetop?policy=nope&by=denied&period=5m").statusCode());
        }
    }

    /** The operator opted in to writes. */
    @Nested
    @SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = "management.endpoint.sluice.access=unrestricted")
    class Unrestricted {
        @LocalServerPort
        int port;

        @Test
        void reset_givesAnExhaustedKeyItsQuotaBack() throws Exception {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, send(port, "GET", "/hello").statusCode());
            }
            assertEquals(429, send(port, "GET", "/hello").statusCode());
            HttpResponse<String> state = send(port, "GET", "/actuator/sluice/per-ip/127.0.0.1");
            assertTrue(state.body().contains("\"remaining\":0"), state.body());

            HttpResponse<String> reset = send(port, "DELETE", "/actuator/sluice/per-ip/127.0.0.1");
            assertEquals(200, reset.statusCode(), reset.body());
            assertTrue(reset.body().contains("\"forgotten\":true"), reset.body());
            assertEquals(200, send(port, "GET", "/hello").statusCode(), "the key's quota is back");

            // A concurrency limit is never reset: its state is the requests still running
            HttpResponse<String> inflight = send(port, "DELETE", "/actuator/sluice/inflight/global");
            assertEquals(200, inflight.statusCode(), inflight.body());
            assertTrue(inflight.body().contains("\"forgotten\":false"), inflight.body());
            assertEquals(404, send(port, "DELETE", "/actuator/sluice/no-such-policy/k").statusCode());
        }
    }
}
