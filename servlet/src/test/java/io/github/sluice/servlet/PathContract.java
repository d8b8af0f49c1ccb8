package io.github.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A path policy holds however a client spells the path: every spelling the container routes to
 * the protected servlet as the policed path shares the canonical path's quota, and spellings it
 * routes elsewhere (or refuses) are neither served under the policy's name nor counted. Real
 * requests, sent raw, so that no client library normalises them first.
 *
 * <p>"As the policed path" is judged by what the application sees (its servlet path and path
 * info, {@link ScenarioServlet#SEEN_PATH}), canonicalised as a router would: containers differ in
 * what they hand over. Tomcat 10.1 and Jetty 12 refuse a backslash and an overlong UTF-8 dot
 * ({@code %c0%ae}); Jetty 10 passes both through as written ({@code /login\},
 * {@code /x/À®À®/login}) and Tomcat 9 the second as U+FFFD: the application sees another resource
 * there, and so does the policy. A spelling whose path the container will not tell the
 * application (Jetty 12's ambiguous URIs) is held to the quota.
 */
abstract class PathContract extends ContainerContract {

    private static final int LIMIT = 3;
    private static final String POLICIES = """
            login   = fixed-window 3/1m align=first-request key=header:X-Client match=POST:/api/login
            reports = fixed-window 3/1m align=first-request key=header:X-Client match=GET:/api/reports/*
            """;

    /** Spellings of POST /api/login that a container may route to the servlet mapped to /api/*. */
    static final List<String> SAME = List.of(
            "/api/login/", "/api/login//", "//api/login", "/api//login", "/api/./login", "/./api/login",
            "/api/x/../login", "/x/../api/login", "/api/login/.", "/api/login/x/..", "/api/login;jsessionid=x",
            "/api;a=b/login", "/api/login;x=1/", "/api/log%69n", "/api/%6Cogin", "/%61pi/login", "/api/login?x",
            "/api/login%2F", "/api/login%2f", "/api/x/%2e%2e/login", "/api/%2e/login", "/api/x/%2E%2E/login",
            "/api/login/%2e", "/api/x/..;/login", "/api/..;/api/login", "/api/login\\", "/api\\login",
            "/api/x\\..\\login", "/api/x/%c0%ae%c0%ae/login", "/api/x%c0%af..%c0%aflogin", "/api/login%00",
            "/api/login%00.json");

    /** Paths the servlet receives as other resources: the policy must not count them. */
    static final List<String> OTHER = List.of(
            "/api/LOGIN", "/api/Login", "/api/login.json", "/api/logins", "/api/login/x", "/api/login%3Bx",
            "/api/login%20", "/api/log");

    PathContract(Container container) {
        super(container);
    }

    private RunningServer server() throws Exception {
        return start(deployment());
    }

    private Deployment deployment() {
        return Deployment.of(new SluiceFilter(enforcer(POLICIES)), app);
    }

    @Test
    void spellingsOfAPolicedPath_shareItsQuota_orAreRefusedByTheContainer() throws Exception {
        assertSpellingsShareTheQuota(start(deployment()));
    }

    /**
     * Jetty with {@code UriCompliance.LEGACY} routes //, %2e%2e and %2F, and its
     * {@code getServletPath()} then throws: the filter must still find the path, limit it, and
     * never turn an ambiguous request for an unpoliced path into an error.
     */
    @Test
    void spellingsOfAPolicedPath_onAContainerRoutingAmbiguousUris_shareItsQuota() throws Exception {
        RunningServer server = start(deployment().withLenientUris());
        assertSpellingsShareTheQuota(server);
        // Tomcat refuses an encoded '/' whatever the setting of this test; Jetty's LEGACY routes it
        boolean slashes = container() == Container.JETTY;
        for (String other : List.of("/api//ok", "/api/x/%2e%2e/ok", "/api/%2e/ok", "/api//reports", "/api/ok%2F")) {
            assertEquals(other.contains("%2F") && !slashes ? 400 : 200, Http.raw(server.base(), "GET", other), other);
        }
        // And the ambiguous spellings were routed to the protected servlet, so the test above had teeth
        for (String ambiguous : List.of("/api//login", "/api/x/%2e%2e/login", "/api/login%2F")) {
            int expected = ambiguous.contains("%2F") && !slashes ? 400 : 200;
            assertEquals(expected, post(server, ambiguous, "probe " + ambiguous), ambiguous);
        }
    }

    private void assertSpellingsShareTheQuota(RunningServer server) {
        Map<String, Integer> served = new TreeMap<>();
        Map<String, String> elsewhere = new TreeMap<>();
        List<String> escaped = new ArrayList<>();
        int n = 0;
        for (String variant : SAME) {
            String client = "same-" + n++;
            // When the spelling is sent LIMIT times, then the canonical path, then the spelling again
            String response = Http.rawResponse(server.base(), "POST", variant, "X-Client", client);
            int first = Integer.parseInt(response.substring(9, 12));
            if (first != 200) {
                continue; // refused (400), or routed elsewhere (404, 405): the protected servlet never ran
            }
            String seen = seenPath(response);
            if (seen != null && !canonical(seen).equals("/api/login")) {
                elsewhere.put(variant, seen); // the application sees another resource: not the policy's
                continue;
            }
            served.put(variant, first);
            int[] statuses = {first, post(server, variant, client), post(server, variant, client),
                post(server, "/api/login", client), post(server, variant, client)};

            // Then the spelling took the canonical path's quota, and the (LIMIT+1)th is refused
            if (statuses[0] != 200 || statuses[1] != 200 || statuses[2] != 200 || statuses[3] != 429
                    || statuses[4] != 429) {
                escaped.add(variant + " -> " + java.util.Arrays.toString(statuses));
            }
        }
        assertTrue(escaped.isEmpty(), container() + ": spellings that escaped the limit " + escaped
                + " (served as other paths: " + elsewhere + ")");
        // The attack is real: the container serves these spellings from the protected servlet
        assertTrue(served.keySet().containsAll(List.of("/api/login/", "/api/./login", "/api/x/../login",
                "/api/login;jsessionid=x", "/api/log%69n", "/api/login?x")), container() + " served " + served);
    }

    @Test
    void otherResources_underThePolicedPrefix_areNotCounted() throws Exception {
        RunningServer server = server();
        for (String other : OTHER) {
            // Given a client that used up its login quota
            String client = "other-" + other;
            for (int i = 0; i < LIMIT; i++) {
                assertEquals(200, post(server, "/api/login", client));
            }
            assertEquals(429, post(server, "/api/login", client));

            // Then a path the container routes as another resource is not refused by the policy
            assertEquals(200, post(server, other, client), other);
        }
    }

    @Test
    void head_isLimitedByAGetPolicy_sharingItsQuota() throws Exception {
        RunningServer server = server();

        // HEAD runs doGet: after LIMIT GETs a HEAD is refused, and after LIMIT HEADs a GET is
        for (int i = 0; i < LIMIT; i++) {
            assertEquals(200, Http.raw(server.base(), "GET", "/api/reports/7", "X-Client", "get-first"));
        }
        assertEquals(429, Http.raw(server.base(), "HEAD", "/api/reports/7", "X-Client", "get-first"));
        for (int i = 0; i < LIMIT; i++) {
            assertEquals(200, Http.raw(server.base(), "HEAD", "/api/reports/7/", "X-Client", "head-first"));
        }
        assertEquals(429, Http.raw(server.base(), "GET", "/api/reports/7", "X-Client", "head-first"));
        // And a method the policy does not name is not counted
        assertEquals(200, Http.raw(server.base(), "POST", "/api/reports/7", "X-Client", "head-first"));
    }

    /**
     * The path the application saw, from the response's {@link ScenarioServlet#SEEN_PATH} field,
     * or {@code null} if the container would not tell it (the spelling is then held to the quota).
     */
    private static String seenPath(String response) {
        String field = "\r\n" + ScenarioServlet.SEEN_PATH.toLowerCase(Locale.ROOT) + ":";
        int at = response.toLowerCase(Locale.ROOT).indexOf(field);
        if (at < 0) {
            return null;
        }
        int end = response.indexOf("\r\n", at + field.length());
        return URLDecoder.decode(response.substring(at + field.length(), end).strip(), StandardCharsets.UTF_8);
    }

    /**
     * The resource a router takes a path for: empty and {@code .} segments dropped (so a trailing
     * slash too), {@code ..} resolved. Written here, not taken from the code under test.
     */
    static String canonical(String path) {
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                if (!segments.isEmpty()) {
                    segments.remove(segments.size() - 1);
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.add(segment);
            }
        }
        return "/" + String.join("/", segments);
    }

    private static int post(RunningServer server, String target, String client) {
        return Http.raw(server.base(), "POST", target, "X-Client", client);
    }
}
