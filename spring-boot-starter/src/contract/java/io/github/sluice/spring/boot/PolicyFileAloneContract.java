package io.github.sluice.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.Enforcer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real application whose only Sluice property is {@code sluice.config}, naming a policies file:
 * Sluice is on, and the server refuses requests past the file's quota. Each Boot generation's
 * tests say which sources start it (Boot 4.0 must be told its container).
 */
abstract class PolicyFileAloneContract {

    @TempDir
    Path dir;

    /**
     * The application's sources.
     *
     * @return {@code FileAloneApplication} and what the Boot generation needs beside it
     */
    abstract Class<?>[] sources();

    @Test
    void policiesFileAlone_realServer_refusesTheRequestPastTheQuota() throws Exception {
        Path file = dir.resolve("sluice.properties");
        Files.writeString(file, "policy.per-ip = fixed-window 3/1h key=ip\nlistener = none\n");
        // No application.yml (the tests' one sets sluice.policies): the file is all there is.
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(sources())
                .properties("spring.config.name=sluice-policies-file-alone")
                .run("--server.port=0", "--sluice.config=" + file)) {
            assertEquals("per-ip", context.getBean(Enforcer.class).policies().get(0).name());
            String port = context.getEnvironment().getProperty("local.server.port");
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            HttpRequest hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/hello"))
                    .timeout(Duration.ofSeconds(30)).build();
            for (int i = 1; i <= 3; i++) {
                assertEquals(200, client.send(hello, HttpResponse.BodyHandlers.ofString()).statusCode(), "request " + i);
            }
            HttpResponse<String> denied = client.send(hello, HttpResponse.BodyHandlers.ofString());
            assertEquals(429, denied.statusCode(), denied.body());
            assertTrue(denied.body().contains("per-ip"), denied.body());
        }
    }
}
