package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Request cost in a real container, and the recipes of {@code docs/recipes.md} that are about
 * cost ("Upload bandwidth by body size") and about combining limits ("A global limit together
 * with per-client limits"), each run as written there: the recipe's text is checked to be in the
 * document verbatim.
 */
abstract class RequestCostContract extends ContainerContract {

    // recipes.md: upload bandwidth (begin)
    static final String UPLOADS = "uploads = token-bucket 10240/1h key=ip match=POST:/api/upload/* cost=body:1KiB";
    // recipes.md: upload bandwidth (end)

    // recipes.md: global and per-client (begin)
    static final String GLOBAL_AND_PER_CLIENT = """
            per-client = fixed-window 3/1m key=header:X-Api-Key match=/api/* unresolved=deny:401
            everyone   = fixed-window 5/1m key=global match=/api/* status=503""";
    // recipes.md: global and per-client (end)

    private static final int MIB = 1024 * 1024;

    RequestCostContract(Container container) {
        super(container);
    }

    /** Reads the whole body and answers with its length. */
    static final class Upload extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long n = 0;
            try (InputStream in = req.getInputStream()) {
                byte[] buffer = new byte[64 * 1024];
                for (int r; (r = in.read(buffer)) >= 0;) {
                    n += r;
                }
            }
            resp.setContentType("text/plain");
            resp.getWriter().print(n);
        }
    }

    private static HttpResponse<String> post(URI uri, HttpRequest.BodyPublisher body, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).POST(body);
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            return Http.CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends {@code request} whole on a connection of its own and reads the response to its end. */
    private static String exchange(URI base, String request) {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends the head of a POST that declares {@code length} bytes and the first KiB of its body (a
     * client that has started its upload: Jetty 10 dispatches a request only once some of its
     * body has arrived, its default delayDispatchUntilContent), and reads the answer.
     */
    private static String declare(URI base, String target, long length) {
        String head = "POST " + target + " HTTP/1.1\r\nHost: " + base.getHost() + ':' + base.getPort()
                + "\r\nContent-Length: " + length + "\r\nConnection: close\r\n\r\n";
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(new byte[(int) Math.min(length, 1024)]);
            socket.getOutputStream().flush();
            byte[] buffer = new byte[8192];
            StringBuilder response = new StringBuilder();
            InputStream in = socket.getInputStream();
            // Read until the end of the problem body: the container may keep the connection open
            // for the body it never reads.
            for (int r; response.indexOf("violated-policies") < 0 || response.indexOf("]}") < 0;) {
                try {
                    r = in.read(buffer);
                } catch (java.net.SocketTimeoutException e) {
                    throw new IllegalStateException("no complete problem body within 20 s; read: '" + response + "'", e);
                }
                if (r < 0) {
                    break;
                }
                response.append(new String(buffer, 0, r, StandardCharsets.ISO_8859_1));
            }
            return response.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends a request head and returns the response's first 12 bytes ({@code HTTP/1.1 411}),
     * without waiting for the connection to close: a container may wait for a body that never comes.
     */
    private static String statusLine(URI base, String head) {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void recipeUploadBandwidth_chargesTheDeclaredSize_refusesOversizedAndUndeclaredUploads() throws Exception {
        // Given the recipe: 10 MiB per client per hour, counted in KiB
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(UPLOADS)), new Upload()));
        URI upload = server.uri("/api/upload/photo");

        // When a client uploads 4 MiB twice, then 4 MiB again
        HttpResponse<String> first = post(upload, HttpRequest.BodyPublishers.ofByteArray(new byte[4 * MIB]));
        HttpResponse<String> second = post(upload, HttpRequest.BodyPublishers.ofByteArray(new byte[4 * MIB]));
        // (the third declares its 4 MiB and sends its first KiB: refused before its body is read,
        // an HTTP client still sending would race the server's close of the connection)
        String third = declare(server.base(), "/api/upload/photo", 4L * MIB);

        // Then the first two pass, whole, and the third waits for the bucket to refill
        assertEquals(200, first.statusCode());
        assertEquals(Integer.toString(4 * MIB), first.body());
        assertEquals("\"uploads\";r=6144;t=1440", first.headers().firstValue("RateLimit").orElseThrow());
        assertEquals(200, second.statusCode());
        assertTrue(third.startsWith("HTTP/1.1 429 "), third);
        assertTrue(third.toLowerCase(java.util.Locale.ROOT).contains("\r\nretry-after: "), third);

        // And an upload larger than the whole hour's allowance is refused at once, 413, without Retry-After
        String oversized = declare(server.base(), "/api/upload/film", 11L * MIB);
        assertTrue(oversized.startsWith("HTTP/1.1 413 "), oversized);
        assertFalse(oversized.contains("Retry-After"), oversized);
        assertTrue(oversized.contains("application/problem+json"), oversized);
        assertTrue(oversized.contains("The request costs 11264 permits, more than the 10240 policy 'uploads' ever"
                + " allows"), oversized);

        // And an upload that declares no size (chunked) is refused with 411 before its body is read
        // (written whole before the answer is read, so the server's early close cannot race it)
        String undeclared = exchange(server.base(), "POST /api/upload/photo HTTP/1.1\r\nHost: x\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n400\r\n" + "x".repeat(1024) + "\r\n0\r\n\r\n");
        assertTrue(undeclared.startsWith("HTTP/1.1 411 "), undeclared);
        assertTrue(undeclared.contains("declares none (Content-Length)"), undeclared);
        assertFalse(undeclared.toLowerCase(java.util.Locale.ROOT).contains("\r\nretry-after: "), undeclared);

        // And an upload that declares a tiny length beside chunked coding never passes for the
        // price of its Content-Length: refused by the container (400) or by Sluice (411)
        String smuggled = statusLine(server.base(), "POST /api/upload/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        assertTrue(smuggled.equals("HTTP/1.1 400") || smuggled.equals("HTTP/1.1 411"), smuggled);

        // And a GET of the same path is not an upload: the policy does not apply
        assertEquals(200, Http.get(upload).statusCode());
    }

    @Test
    void headerCost_hostileValues_allRefusedWith400_andTheQuotaIsUntouched() throws Exception {
        RunningServer server = start(Deployment.ofInitParams(Map.of("policies",
                "bulk = fixed-window 10/1m key=ip cost=header:X-Cost", "listener", "none"), new Upload()));
        URI uri = server.uri("/api/bulk");
        for (String hostile : new String[] {"0", "-1", "1.5", "1e9", "99999999999999999999", "abc", "2,2", "11"}) {
            HttpResponse<String> r = Http.get(uri, "X-Cost", hostile);
            assertEquals(400, r.statusCode(), hostile);
            assertTrue(r.headers().firstValue("Retry-After").isEmpty(), hostile);
            assertTrue(r.body().contains("\"status\":400"), r.body());
        }
        HttpResponse<String> two = Http.get(uri, "X-Cost", "1", "X-Cost", "1");
        assertEquals(400, two.statusCode(), "two X-Cost lines");
        HttpResponse<String> ten = Http.get(uri, "X-Cost", "10");
        assertEquals(200, ten.statusCode(), "nothing refused took any of the 10");
        assertEquals(429, Http.get(uri, "X-Cost", "1").statusCode());
    }

    @Test
    void recipeGlobalAndPerClient_aClientRefusedByItsOwnLimit_spendsNothingOfTheGlobalOne() throws Exception {
        // Given the recipe: 3 per minute per API key, 5 per minute for everyone together
        RunningServer server = start(Deployment.of(new SluiceFilter(enforcer(GLOBAL_AND_PER_CLIENT)), new Upload()));
        URI api = server.uri("/api/items");

        // When one client takes its 3 and then hammers on
        for (int i = 0; i < 3; i++) {
            assertEquals(200, Http.get(api, "X-Api-Key", "greedy").statusCode());
        }
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> refused = Http.get(api, "X-Api-Key", "greedy");
            assertEquals(429, refused.statusCode());
            assertTrue(refused.body().contains("\"violated-policies\":[\"per-client\"]"), refused.body());
        }

        // Then its refusals spent nothing of the global limit: two others still get the last 2
        assertEquals(200, Http.get(api, "X-Api-Key", "a").statusCode());
        assertEquals(200, Http.get(api, "X-Api-Key", "b").statusCode());

        // And once everyone together has used the 5, a fresh client gets 503, naming the global policy
        HttpResponse<String> full = Http.get(api, "X-Api-Key", "c");
        assertEquals(503, full.statusCode());
        assertTrue(full.body().contains("\"violated-policies\":[\"everyone\"]"), full.body());
        assertTrue(full.headers().firstValue("Retry-After").isPresent());

        // And a request without a key is refused with 401, spending nothing either
        assertEquals(401, Http.get(api).statusCode());
        clock.advance(Duration.ofMinutes(1));
        assertEquals(200, Http.get(api, "X-Api-Key", "c").statusCode());
    }

    /**
     * docs/recipes.md, found upwards from the working directory: the servlet module's, or the
     * javax module's copy of the servlet tree (under its target directory).
     */
    private static Path recipes() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve("docs").resolve("recipes.md");
            if (Files.isRegularFile(doc)) {
                return doc;
            }
        }
        throw new AssertionError("no docs/recipes.md above " + Path.of("").toAbsolutePath());
    }

    @Test
    void recipes_areInTheDocumentVerbatim() throws Exception {
        String doc = Files.readString(recipes());
        assertTrue(doc.contains(UPLOADS), "docs/recipes.md must hold the upload recipe as tested");
        assertTrue(doc.contains(GLOBAL_AND_PER_CLIENT), "docs/recipes.md must hold the global recipe as tested");
    }
}
