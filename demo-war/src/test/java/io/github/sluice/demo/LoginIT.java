package io.github.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo's {@code POST /servlet/login} in embedded Jetty, as the README shows it: only failed
 * logins count, 3 per minute per client address; the fourth request from an address with three
 * failures is refused whatever its password, and right passwords never spend the quota.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LoginIT {

    private EmbeddedJetty jetty;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Http.TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        Path war = Path.of(System.getProperty("sluice.demo.war", "target/sluice-demo.war"));
        assertTrue(Files.isRegularFile(war), "the WAR must be built before the integration tests: " + war);
        jetty = EmbeddedJetty.start(war, Map.of());
    }

    @AfterAll
    void stop() throws Exception {
        jetty.close();
    }

    /** A login as a form post from {@code address}, which the demo reads from X-Forwarded-For. */
    private HttpResponse<String> form(String address, String password) throws Exception {
        return client.send(HttpRequest.newBuilder(jetty.uri().resolve("servlet/login")).timeout(Http.TIMEOUT)
                .header("X-Forwarded-For", address)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("password=" + password)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A login with the password as a query parameter. */
    private HttpResponse<String> query(String address, String password) throws Exception {
        return client.send(HttpRequest.newBuilder(jetty.uri().resolve("servlet/login?password=" + password))
                .timeout(Http.TIMEOUT).header("X-Forwarded-For", address)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void threeWrongPasswords_theFourthRequestIsRefusedWhateverItsPassword() throws Exception {
        String attacker = "203.0.113.10";
        for (int i = 1; i <= 3; i++) {
            HttpResponse<String> wrong = i == 2 ? query(attacker, "guess" + i) : form(attacker, "guess" + i);
            assertEquals(401, wrong.statusCode(), "attempt " + i);
        }
        HttpResponse<String> fourth = form(attacker, "open-sesame");
        assertEquals(429, fourth.statusCode(), fourth.body());
        assertTrue(fourth.body().contains("\"violated-policies\":[\"login\"]"), fourth.body());
        assertTrue(Http.header(fourth, "Retry-After") != null);
        assertEquals(429, query(attacker, "open-sesame").statusCode());
    }

    @Test
    void tenRightPasswords_fromAnotherAddress_allPass_andSpendNothing() throws Exception {
        String user = "203.0.113.20";
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> right = i % 2 == 0 ? form(user, "open-sesame") : query(user, "open-sesame");
            assertEquals(200, right.statusCode(), "login " + i);
            assertEquals("Welcome.\n", right.body());
        }
        // Then the address still has its three failed attempts
        for (int i = 1; i <= 3; i++) {
            assertEquals(401, form(user, "typo" + i).statusCode(), "failure " + i);
        }
        assertEquals(429, form(user, "open-sesame").statusCode());
    }

    @Test
    void loginsAreNotCountedByPerIp_norHelloByLogin() throws Exception {
        String client = "203.0.113.30";
        for (int i = 0; i < 6; i++) {
            assertEquals(200, form(client, "open-sesame").statusCode());
        }
        HttpResponse<String> hello = client("servlet/hello", client);
        assertEquals("\"per-ip\";r=4;t=10", Http.header(hello, "RateLimit"));
    }

    private HttpResponse<String> client(String path, String address) throws Exception {
        return client.send(HttpRequest.newBuilder(jetty.uri().resolve(path)).timeout(Http.TIMEOUT)
                .header("X-Forwarded-For", address).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
