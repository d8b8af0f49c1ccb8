package io.github.sluice.example.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's one command for the gateway, run as a newcomer runs it: a backend this test serves
 * (echoing the path it was asked for), and the packaged executable jar started as a process of its
 * own with {@code --server.port} and {@code --backend}: {@code /get/**} reaches the backend
 * unchanged with the {@code RateLimit} fields, and the sixth request in the window is refused.
 */
class GatewayExampleJarIT {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static HttpServer backend;
    private static Process app;
    private static Path log;
    private static int port;

    @BeforeAll
    static void startBackendAndTheJar() throws Exception {
        backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
            byte[] body = ("backend " + exchange.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        backend.start();
        Path jar = Path.of(System.getProperty("example.jar", "target/sluice-gateway-example.jar"));
        assertTrue(Files.isRegularFile(jar), "the executable jar was not built: " + jar);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        log = Files.createTempFile("sluice-gateway-example", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        app = new ProcessBuilder(List.of(java, "-Xmx256m", "-jar", jar.toString(), "--server.port=" + port,
                "--backend=http://127.0.0.1:" + backend.getAddress().getPort()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true) {
            assertTrue(app.isAlive(), () -> "the example exited: " + output());
            try {
                get("/no-such-route");
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
        if (backend != null) {
            backend.stop(0);
        }
    }

    private static String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void get_isProxiedUnchangedWithTheFields_andTheSixthInTheWindowIsRefused() throws Exception {
        for (int i = 1; i <= 5; i++) {
            HttpResponse<String> r = get("/get/anything?x=" + i);
            assertEquals(200, r.statusCode(), "request " + i);
            assertEquals("backend /get/anything?x=" + i, r.body());
            assertTrue(r.headers().firstValue("RateLimit").orElseThrow().startsWith("\"per-ip\";r=" + (5 - i)),
                    r.headers().toString());
            assertEquals("\"per-ip\";q=5;w=10", r.headers().firstValue("RateLimit-Policy").orElseThrow());
        }
        HttpResponse<String> sixth = get("/get/anything");
        assertEquals(429, sixth.statusCode(), sixth.body());
        assertTrue(sixth.headers().firstValue("Retry-After").isPresent(), sixth.headers().toString());
        assertTrue(sixth.body().contains("per-ip"), sixth.body());
    }
}
