package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Operations on a real container: the admin servlet is reachable only where it is mapped, and only
 * past the application's protection; it reads and resets keys; CORS preflights pass the limits.
 */
abstract class OperationsContract extends ContainerContract {

    static final Path ADMIN_WEBAPP = Path.of("src", "test", "webapp-admin").toAbsolutePath();
    private static final String[] OPERATOR = {"Authorization", "Bearer operator"};

    OperationsContract(Container container) {
        super(container);
    }

    @Test
    void adminPaths_appWithOnlyTheFilter_are404() throws Exception {
        // Given the test webapp: Sluice filters, no admin servlet
        RunningServer server = startWebapp(Container.TEST_WEBAPP);

        // Then nothing answers the admin paths: 404 (Jetty's default servlet refuses DELETE with 405)
        for (String path : new String[] {"/admin/sluice/policies", "/admin/sluice/keys?key=127.0.0.1",
            "/sluice/policies", "/policies", "/keys?key=127.0.0.1"}) {
            HttpResponse<String> get = Http.get(server.uri(path), OPERATOR);
            HttpResponse<String> delete = send(server.uri(path), "DELETE", OPERATOR);
            assertEquals(404, get.statusCode(), path);
            assertTrue(delete.statusCode() == 404 || delete.statusCode() == 405, path + ": " + delete.statusCode());
            for (HttpResponse<String> r : List.of(get, delete)) {
                assertFalse(r.body().contains("\"policies\"") || r.body().contains("\"reset\""), r.body());
            }
        }
    }

    @Test
    void adminServlet_withoutTheOperatorsCredentials_is403() throws Exception {
        RunningServer server = startWebapp(ADMIN_WEBAPP);

        assertEquals(403, Http.get(server.uri("/admin/sluice/policies")).statusCode());
        assertEquals(403, send(server.uri("/admin/sluice/keys?key=127.0.0.1"), "DELETE").statusCode());
    }

    @Test
    void adminServlet_listsPolicies_readsAKey_andResetsIt() throws Exception {
        // Given a client that used its quota of 2
        RunningServer server = startWebapp(ADMIN_WEBAPP);
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
        assertEquals(429, Http.get(server.uri("/api/ok")).statusCode());

        // When an operator looks at the policies and at the key
        HttpResponse<String> policies = Http.get(server.uri("/admin/sluice/policies"), OPERATOR);
        HttpResponse<String> key = Http.get(server.uri("/admin/sluice/keys?key=127.0.0.1"), OPERATOR);

        // Then they are shown as configured, with their counts, and the key as spent
        assertEquals(200, policies.statusCode());
        assertEquals("application/json;charset=UTF-8", policies.headers().firstValue("Content-Type").orElseThrow()
                .replace(" ", "").replace("utf-8", "UTF-8"));
        assertTrue(policies.body().startsWith("{\"policies\":[{\"name\":\"per-ip\",\"policy\":\"per-ip = fixed-window "
                + "2/1m key=ip match=/api/*\",\"algorithm\":\"fixed-window\",\"limit\":2,\"dry-run\":false,\"allowed\":2,"
                + "\"shaped\":0,\"denied\":1,"), policies.body());
        assertEquals(200, key.statusCode());
        assertTrue(key.body().startsWith("{\"key\":\"127.0.0.1\",\"states\":[{\"policy\":\"per-ip\",\"algorithm\":"
                + "\"fixed-window\",\"limit\":2,\"remaining\":0,\"reset-seconds\":"), key.body());
        assertTrue(key.body().contains("{\"policy\":\"inflight\",\"algorithm\":\"concurrency\",\"limit\":5,"
                + "\"remaining\":5,\"reset-seconds\":0,\"in-flight\":0}"), key.body());

        // And the top refused clients of per-ip list this client, with its one refusal
        HttpResponse<String> top = Http.get(server.uri("/admin/sluice/top?policy=per-ip&by=denied&period=5m"), OPERATOR);
        assertEquals(200, top.statusCode(), top.body());
        assertEquals("{\"policy\":\"per-ip\",\"by\":\"denied\",\"period\":\"5m\",\"size\":20,\"total\":1,"
                + "\"bound\":0,\"top\":[{\"key\":\"127.0.0.1\",\"count\":1,\"error\":0}]}", top.body());

        // When the operator resets the key under per-ip
        HttpResponse<String> reset = send(server.uri("/admin/sluice/keys?key=127.0.0.1&policy=per-ip"), "DELETE",
                OPERATOR);

        // Then the client has its quota again
        assertEquals(200, reset.statusCode());
        assertEquals("{\"key\":\"127.0.0.1\",\"reset\":[\"per-ip\"]}", reset.body());
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
    }

    @Test
    void adminServlet_hostileOrWrongInput_isRefusedWithAProblem_andNeverEchoedRaw() throws Exception {
        RunningServer server = startWebapp(ADMIN_WEBAPP);
        Map<String, Integer> cases = Map.ofEntries(
                Map.entry("/admin/sluice/keys", 400),
                Map.entry("/admin/sluice/keys?key=", 400),
                Map.entry("/admin/sluice/keys?key=a&key=b", 400),
                Map.entry("/admin/sluice/keys?key=" + "x".repeat(5000), 400),
                Map.entry("/admin/sluice/keys?key=127.0.0.1&policy=nope", 404),
                Map.entry("/admin/sluice/keys/127.0.0.1", 404),
                Map.entry("/admin/sluice/top", 400),
                Map.entry("/admin/sluice/top?policy=per-ip&by=allowed", 400),
                Map.entry("/admin/sluice/top?policy=per-ip&period=16m", 400),
                Map.entry("/admin/sluice/top?policy=nope", 404),
                Map.entry("/admin/sluice/top?policy=per-ip&by=admitted", 404),
                Map.entry("/admin/sluice/", 404),
                Map.entry("/admin/sluice", 404));
        for (Map.Entry<String, Integer> c : cases.entrySet()) {
            HttpResponse<String> r = Http.get(server.uri(c.getKey()), OPERATOR);
            assertEquals(c.getValue(), r.statusCode(), c.getKey());
            assertTrue(r.headers().firstValue("Content-Type").orElseThrow().startsWith("application/problem+json"),
                    c.getKey());
        }
        // A key with a line break and a quote comes back JSON-escaped, percent-decoded once
        HttpResponse<String> odd = Http.get(server.uri("/admin/sluice/keys?key=a%0A%22b%2Fc%25"), OPERATOR);
        assertEquals(200, odd.statusCode());
        assertTrue(odd.body().startsWith("{\"key\":\"a\\n\\\"b/c%\""), odd.body());
    }

    @Test
    void optionsPreflights_byDefault_neitherLimitedNorSpendingTheQuota() throws Exception {
        RunningServer server = startWebapp(ADMIN_WEBAPP);

        for (int i = 0; i < 5; i++) {
            assertEquals(200, Http.raw(server.base(), "OPTIONS", "/api/ok", "Origin", "https://example.com",
                    "Access-Control-Request-Method", "GET"));
        }

        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
        assertEquals(200, Http.get(server.uri("/api/ok")).statusCode());
        assertEquals(429, Http.get(server.uri("/api/ok")).statusCode());
    }

    private static HttpResponse<String> send(URI uri, String method, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                .method(method, HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return Http.CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
