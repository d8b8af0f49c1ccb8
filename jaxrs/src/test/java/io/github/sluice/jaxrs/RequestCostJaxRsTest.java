package io.github.sluice.jaxrs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.testing.FakeClock;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A cost read from the request on JAX-RS, over real HTTP: the declared body size as Jersey sees
 * it, through {@link RateLimited} (which keeps the policy's own cost unless it sets one) and
 * through the path-matched filter, with the refusals of a missing, bad or oversized cost.
 */
class RequestCostJaxRsTest {

    private static JerseyServer server;

    @Path("/")
    public static class Uploads {
        @POST
        @Path("files")
        @RateLimited("upload")
        public String files(byte[] body) {
            return Integer.toString(body.length);
        }

        @POST
        @Path("fixed")
        @RateLimited(value = "upload", cost = 2)
        public String fixed(byte[] body) {
            return Integer.toString(body.length);
        }

        @POST
        @Path("batch")
        public String batch(byte[] body) {
            return "ok";
        }
    }

    @BeforeAll
    static void start() {
        Enforcer enforcer = Enforcer.builder()
                .policies("""
                        upload = fixed-window 64/1m key=ip match=none cost=body:1KiB
                        batch  = fixed-window 10/1m key=ip match=/batch cost=header:X-Batch-Size
                        """)
                .listener(EnforcementListener.NONE)
                .store(ShardedRegistry.builder().clock(new FakeClock()).build())
                .build();
        server = JerseyServer.start(new ResourceConfig(Uploads.class).register(new SluiceFeature(enforcer)));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static HttpResponse<String> post(String path, HttpRequest.BodyPublisher body, String... headers) {
        HttpRequest.Builder b = server.request(path).POST(body).header("Content-Type", "application/octet-stream");
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return server.send(b.build());
    }

    /** Sends a POST's head declaring {@code length} bytes and its first KiB; reads to the end of the problem body. */
    private static String declare(String path, int length) {
        java.net.URI uri = server.request(path).build().uri();
        String head = "POST " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ':' + uri.getPort()
                + "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + length
                + "\r\nConnection: close\r\n\r\n";
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(new byte[Math.min(length, 1024)]);
            socket.getOutputStream().flush();
            StringBuilder response = new StringBuilder();
            byte[] buffer = new byte[8192];
            java.io.InputStream in = socket.getInputStream();
            for (int r; response.indexOf("violated-policies") < 0 || response.indexOf("]}") < 0;) {
                r = in.read(buffer);
                if (r < 0) {
                    break;
                }
                response.append(new String(buffer, 0, r, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            return response.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void rateLimited_bodyCost_chargesTheDeclaredSize_411WithoutOne_413AboveTheLimit_andAnOverrideWins() {
        HttpResponse<String> tenK = post("/files", HttpRequest.BodyPublishers.ofByteArray(new byte[10 * 1024]));
        assertEquals(200, tenK.statusCode());
        assertEquals("10240", tenK.body());
        assertEquals("\"upload\";r=54;t=60", tenK.headers().firstValue("RateLimit").orElseThrow().replaceAll("t=\\d+", "t=60"));

        // A chunked upload, written whole before the answer is read: the server refuses it before
        // reading the body, and an HTTP client still sending would race the connection's close.
        String chunked = server.rawExchange("POST /files HTTP/1.1", "Content-Type: application/octet-stream\r\n"
                + "Transfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n");
        assertTrue(chunked.startsWith("HTTP/1.1 411 "), chunked);
        String head = chunked.substring(0, chunked.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT);
        assertFalse(head.contains("\nretry-after:"), chunked);
        assertTrue(chunked.contains("\"status\":411"), chunked);

        // The upload declares its 65 KiB and sends its first KiB: refused on its declared size before
        // the rest is read (an HTTP client still sending would race the server's close).
        String huge = declare("/files", 65 * 1024);
        assertTrue(huge.startsWith("HTTP/1.1 413 "), huge);
        assertFalse(huge.substring(0, huge.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT)
                .contains("\nretry-after:"), huge);
        assertTrue(huge.contains("The request costs 65 permits, more than the 64 policy 'upload' ever allows"), huge);

        HttpResponse<String> override = post("/fixed", HttpRequest.BodyPublishers.ofByteArray(new byte[30 * 1024]));
        assertEquals(200, override.statusCode(), "@RateLimited(cost = 2) charges 2 whatever the size");
        assertTrue(override.headers().firstValue("RateLimit").orElseThrow().startsWith("\"upload\";r=52;"));
    }

    @Test
    void pathPolicy_headerCost_hostileValuesRefusedWith400() {
        for (String hostile : new String[] {"0", "-2", "2.5", "1e2", "11", "99999999999999999999999", "x"}) {
            HttpResponse<String> r = post("/batch", HttpRequest.BodyPublishers.noBody(), "X-Batch-Size", hostile);
            assertEquals(400, r.statusCode(), hostile);
            assertTrue(r.headers().firstValue("Retry-After").isEmpty(), hostile);
        }
        assertEquals(200, post("/batch", HttpRequest.BodyPublishers.noBody(), "X-Batch-Size", "10").statusCode());
        assertEquals(429, post("/batch", HttpRequest.BodyPublishers.noBody(), "X-Batch-Size", "1").statusCode());
    }
}
