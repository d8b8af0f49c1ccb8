package io.github.sluice.example.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's one command for WebFlux, run as a newcomer runs it: the packaged executable jar
 * started as a process of its own with {@code --server.port} on a free port; the sixth request in
 * the window is refused.
 */
class WebFluxExampleJarIT {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static Process app;
    private static Path log;
    private static int port;

    @BeforeAll
    static void startTheJar() throws Exception {
        Path jar = Path.of(System.getProperty("example.jar", "target/sluice-webflux-example.jar"));
        assertTrue(Files.isRegularFile(jar), "the executable jar was not built: " + jar);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        log = Files.createTempFile("sluice-webflux-example", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        app = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar.toString(), "--server.port=" + port))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true) {
            assertTrue(app.isAlive(), () -> "the example exited: " + output());
            try {
                get("/no-such-page", null);
                return;
            } catch (ConnectException notYet) {
                assertTrue(System.nanoTime() < deadline, () -> "the example did not start: " + output());
                Thread.sleep(200);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (app != null) {
            app.destroy();
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    private static String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private static HttpResponse<String> get(String path, String apiKey) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30));
        if (apiKey != null) {
            b.header("X-Api-Key", apiKey);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void hello_sixthRequestInTheWindow_isRefusedWith429() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> r = get("/hello", null);
            assertEquals(200, r.statusCode(), "request " + i);
            assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-ip\";r=" + (5 - i)),
                    r.headers().toString());
        }
        HttpResponse<String> sixth = get("/hello", null);
        assertEquals(429, sixth.statusCode(), sixth.body());
        assertTrue(sixth.headers().firstValue("Retry-After").isPresent(), sixth.headers().toString());
        assertTrue(sixth.body().contains("per-ip"), sixth.body());
    }

    @Test
    void annotated_sixthRequestWithOneApiKey_isRefused_anotherKeyIsNot() throws Exception {
        for (int i = 1; i <= 5; i++) {
            assertEquals(200, get("/hello/annotated", "newcomer").statusCode(), "request " + i);
        }
        HttpResponse<String> sixth = get("/hello/annotated", "newcomer");
        assertEquals(429, sixth.statusCode(), sixth.body());
        assertTrue(sixth.body().contains("per-key"), sixth.body());
        assertEquals(200, get("/hello/annotated", "someone-else").statusCode());
    }
}
