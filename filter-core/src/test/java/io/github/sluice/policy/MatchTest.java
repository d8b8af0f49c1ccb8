package io.github.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class MatchTest {

    @Test
    void matches_prefixPattern_coversTheDirectoryAndItself() {
        Match m = Match.parse("/api/*");

        assertTrue(m.matches("GET", "/api"));
        assertTrue(m.matches("GET", "/api/"));
        assertTrue(m.matches("GET", "/api/orders/7"));
        assertFalse(m.matches("GET", "/apis"));
        assertFalse(m.matches("GET", "/API/orders"), "paths are case-sensitive");
    }

    @Test
    void matches_methods_areCaseInsensitiveAndPerRule() {
        Match m = Match.parse("POST|put:/login,/health");

        assertTrue(m.matches("POST", "/login"));
        assertTrue(m.matches("post", "/login"));
        assertTrue(m.matches("PUT", "/login"));
        assertFalse(m.matches("GET", "/login"));
        assertTrue(m.matches("GET", "/health"));
        assertEquals("POST|PUT:/login,/health", m.toString());
        assertEquals(Match.parse("POST|PUT:/login,/health"), m);
    }

    @Test
    void matches_innerAndSeveralStars() {
        Match m = Match.paths("/users/*/orders/*", "*.json");

        assertTrue(m.matches("GET", "/users/7/orders/9"));
        assertTrue(m.matches("GET", "/users/7/x/orders/"));
        assertFalse(m.matches("GET", "/users/7/order"));
        assertTrue(m.matches("GET", "/a/b.json"));
        assertFalse(m.matches("GET", "/a/b.jsonx"));
        assertFalse(m.matches("GET", null));
    }

    /** Jersey routes /login/ to @Path("login"); a servlet mapped to /login/* receives /login. */
    @Test
    void trailingSlash_onThePathOrThePattern_isInsignificant() {
        Match login = Match.parse("POST:/login");
        Match dir = Match.parse("/admin/");

        assertTrue(login.matches("POST", "/login/"));
        assertTrue(login.matches("POST", "/login//"));
        assertTrue(dir.matches("GET", "/admin"));
        assertTrue(dir.matches("GET", "/admin/"));
        assertTrue(Match.paths("*.json").matches("GET", "/a/b.json/"));
        assertTrue(Match.paths("/").matches("GET", "/"));
        assertFalse(Match.paths("/").matches("GET", "/x"));
        assertFalse(login.matches("POST", "/login/x"), "a deeper path is another resource");
        assertFalse(login.matches("POST", "/logins"));
    }

    /**
     * Tomcat routes //login, /./login and /a/../login to /login; Jersey routes /items/.. to the
     * item "..": a policy holds if either the path or its canonical form matches.
     */
    @Test
    void nonCanonicalPath_matchesIfItOrItsCanonicalFormDoes() {
        Match login = Match.parse("/login");
        Match items = Match.parse("/api/items/*");

        for (String p : List.of("//login", "/./login", "/a/../login", "/a/b/../../login", "/../login", "/login/.",
                "/x/../login/", "///login", "/login/x/..")) {
            assertTrue(login.matches("GET", p), p);
        }
        assertTrue(items.matches("GET", "/api/items/.."), "as written: Jersey's item '..'");
        assertTrue(items.matches("GET", "/api/items/../items/1"), "canonical: /api/items/1");
        assertTrue(items.matches("GET", "/api//items/1"));
        assertTrue(Match.paths("/a/*/b").matches("GET", "/a//b"), "as written: * spans the empty segment");
        assertFalse(login.matches("GET", "/login/../other"));
        assertFalse(login.matches("GET", "/LOGIN"));
    }

    @Test
    void head_isCoveredByAGetRule_unlessTheMatchNamesHead() {
        Match get = Match.parse("GET:/reports/*");
        Match separate = Match.parse("GET:/reports/*,HEAD:/reports/summary");
        Match post = Match.parse("POST:/reports/*");

        assertTrue(get.matches("HEAD", "/reports/7"), "doHead runs doGet; Jersey serves HEAD with @GET");
        assertTrue(get.matches("head", "/reports/7"));
        assertFalse(get.matches("HEAD", "/other"));
        assertTrue(separate.matches("HEAD", "/reports/summary"));
        assertFalse(separate.matches("HEAD", "/reports/7"), "HEAD named separately: matched as written");
        assertTrue(separate.matches("GET", "/reports/7"));
        assertFalse(post.matches("HEAD", "/reports/7"));
        assertTrue(Match.paths("/x").matches("HEAD", "/x"));
        assertEquals("GET:/reports/*", get.toString(), "the implied HEAD is not printed");
        assertFalse(get.rules().get(0).matches("HEAD", "/reports/7"), "a rule alone matches its methods as written");
    }

    @Test
    void methods_unregistered_areRejectedWithTheRegistryAndTheWayOut() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Match.parse("POTS:/login"));

        assertEquals("match method must be a registered HTTP method (GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS,"
                + " TRACE, CONNECT, QUERY or a WebDAV method such as PROPFIND) but was 'POTS' in 'POTS:/login' (did you"
                + " mean 'POST'?); to limit every method, the unregistered ones included, omit the method part",
                e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Match.parse("PSOT:/login")).getMessage()
                .contains("(did you mean 'POST'?)"), "a swap of two neighbours is a slip");
        assertFalse(assertThrows(IllegalArgumentException.class, () -> Match.parse("BREW:/pot")).getMessage()
                .contains("did you mean"), "no suggestion when nothing is near");
        assertThrows(IllegalArgumentException.class, () -> Match.parse("GET|FETCH:/a"));
        assertThrows(IllegalArgumentException.class, () -> Match.parse("PRI:/a"));
        assertThrows(IllegalArgumentException.class, () -> Match.of(List.of("PURGE"), "/a"));
        assertThrows(IllegalArgumentException.class, () -> new Match.Rule(List.of("BREW"), "/pot"));
        assertEquals("match method must be an HTTP method name but was '*' in '*:/login'",
                assertThrows(IllegalArgumentException.class, () -> Match.parse("*:/login")).getMessage());
        assertEquals("match method must be an HTTP method name but was '' in 'GET|:/a'",
                assertThrows(IllegalArgumentException.class, () -> Match.parse("GET|:/a")).getMessage());
    }

    @Test
    void methods_registered_includingWebDavAndQuery_areAccepted() {
        Match m = Match.parse("propfind|MKCOL|Query|version-control|patch:/dav/*");

        assertEquals("PROPFIND|MKCOL|QUERY|VERSION-CONTROL|PATCH:/dav/*", m.toString());
        assertTrue(m.matches("PROPFIND", "/dav/a"));
        assertTrue(Match.METHODS.containsAll(List.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE",
                "CONNECT", "PATCH")));
    }

    @Test
    void pattern_template_isRejectedWithTheGlobToWriteInstead() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Match.parse("GET:/users/{id}/orders"));

        assertEquals("match pattern must not contain '{' (path templates such as {id} or <id> are not supported:"
                + " write '*', e.g. /users/*/orders) but was '/users/{id}/orders' in 'GET:/users/{id}/orders'",
                e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Match.paths("/users/<int:id>")).getMessage()
                .startsWith("match pattern must not contain '<' (path templates"));
    }

    @Test
    void pattern_regexEncodedOrParameterised_isRejectedWithTheReason() {
        assertEquals("match pattern must not contain '^' (patterns are globs whose only wildcard is '*', not regular"
                + " expressions) but was '^/api/.*$' in '^/api/.*$'",
                assertThrows(IllegalArgumentException.class, () -> Match.paths("^/api/.*$")).getMessage());
        assertEquals("match pattern must not contain '\\' (patterns are globs whose only wildcard is '*', not regular"
                + " expressions) but was '/users/\\d+' in '/users/\\d+'",
                assertThrows(IllegalArgumentException.class, () -> Match.paths("/users/\\d+")).getMessage());
        assertEquals("match pattern must not contain '%' (paths are compared decoded: write the character itself)"
                + " but was '/log%69n' in '/log%69n'",
                assertThrows(IllegalArgumentException.class, () -> Match.paths("/log%69n")).getMessage());
        assertEquals("match pattern must not contain ';' (matrix parameters are removed from the path before it is"
                + " compared) but was '/login;jsessionid=*' in 'POST:/login;jsessionid=*'",
                assertThrows(IllegalArgumentException.class, () -> Match.parse("POST:/login;jsessionid=*")).getMessage());
        assertEquals("match pattern must not contain '?' (the query string is not part of the path, and '*' is the"
                + " only wildcard) but was '/search?q=*' in '/search?q=*'",
                assertThrows(IllegalArgumentException.class, () -> Match.paths("/search?q=*")).getMessage());
        for (String p : List.of("/a[0-9]", "/(v1|v2)/x", "/a#frag", "/a}", "/a<b>", "/a\"b", "/a`b")) {
            assertThrows(IllegalArgumentException.class, () -> Match.paths(p), p);
        }
    }

    @Test
    void pattern_withSegmentsTheComparedPathNeverHas_isRejected() {
        for (String p : List.of("//login", "/api//x", "/./login", "/a/../login", "/login/.", "/login/..", "/api/*/..")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Match.paths(p), p);
            assertEquals("match pattern must not contain '//', '.' or '..' segments (the compared path never has"
                    + " them: write the path they lead to) but was '" + p + "' in '" + p + "'", e.getMessage());
        }
        // Dots inside a segment are ordinary characters
        assertTrue(Match.paths("/.well-known/*", "/login.*", "/a..b").matches("GET", "/.well-known/x"));
    }

    @Test
    void pattern_mayContainAColon_whenTheRuleHasNoMethodPart() {
        Match m = Match.parse("/v1/items:batchGet,POST:/v1/items:import");

        assertEquals(List.of(), m.rules().get(0).methods());
        assertEquals("/v1/items:batchGet", m.rules().get(0).pattern());
        assertEquals(List.of("POST"), m.rules().get(1).methods());
        assertEquals("/v1/items:import", m.rules().get(1).pattern());
        assertTrue(m.matches("GET", "/v1/items:batchGet"));
        assertTrue(m.matches("POST", "/v1/items:import/"));
        assertEquals(m, Match.parse(m.toString()));
    }

    @Test
    void matches_randomPathsAgreeWithAReferenceModel() {
        Random random = new Random(7);
        int valid = 0;
        for (int c = 0; c < 25_000; c++) {
            String pattern = random(random, "/ab*.", 7);
            String path = random(random, "/ab.", 9);
            Match m;
            try {
                m = Match.paths(pattern);
            } catch (IllegalArgumentException e) {
                assertFalse(Match.canonical(pattern), pattern + ": " + e.getMessage());
                continue;
            }
            valid++;
            assertEquals(reference(pattern, path), m.matches("GET", path), pattern + " vs " + path);
        }
        assertTrue(valid > 8_000, "valid patterns tried: " + valid);
    }

    /**
     * A match that has a rule for every path ({@code /*}, the default of a policy) answers without
     * walking its rules; it must answer as the walk does, for every method, for matches whose
     * other rules name methods, and for paths that are empty, relative or not canonical.
     */
    @Test
    void matches_everyPathShortcut_answersAsTheRulesDo() {
        Random random = new Random(15);
        List<String> methods = List.of("GET", "get", "HEAD", "POST", "OPTIONS", "PATCH");
        for (String text : List.of("/*", "/**", "GET:/*", "POST|PUT:/**", "/api/*,/*", "GET:/x,/*", "HEAD:/*,/a",
                "/a/*", "GET:/*,POST:/b")) {
            Match m = Match.parse(text);
            for (int c = 0; c < 3_000; c++) {
                String path = random.nextInt(4) == 0 ? random(random, "/ab.", 6).substring(1) : random(random, "/ab.", 8);
                String method = methods.get(random.nextInt(methods.size()));
                assertEquals(m.matchesByRules(method, path), m.matches(method, path), text + " vs " + method + " " + path);
            }
            assertFalse(m.matches("GET", null), text);
        }
        assertTrue(Match.ALL.matches("DELETE", "/"));
        assertFalse(Match.ALL.matches("GET", "relative"));
    }

    private static String random(Random random, String alphabet, int maxLength) {
        StringBuilder b = new StringBuilder("/");
        for (int i = random.nextInt(maxLength); i > 0; i--) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /**
     * The specification, written independently of the implementation: a regex for the glob, the
     * directory rule, trailing slashes stripped on either side, and the canonical form computed
     * with a stack of segments.
     */
    private static boolean reference(String pattern, String path) {
        for (String p : List.of(pattern, stripSlashes(pattern))) {
            for (String s : List.of(path, stripSlashes(path), canonical(path), stripSlashes(canonical(path)))) {
                if (Pattern.matches(Pattern.quote(p).replace("*", "\\E.*\\Q"), s)
                        || (p.endsWith("/*") && s.equals(p.substring(0, p.length() - 2)))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String stripSlashes(String s) {
        String t = s.replaceAll("/+$", "");
        return t.isEmpty() ? "/" : t;
    }

    private static String canonical(String path) {
        Deque<String> segments = new ArrayDeque<>();
        for (String seg : path.split("/")) {
            if (seg.equals("..")) {
                segments.pollLast();
            } else if (!seg.isEmpty() && !seg.equals(".")) {
                segments.addLast(seg);
            }
        }
        return "/" + String.join("/", segments);
    }

    @Test
    void of_methodsAndPatterns() {
        assertEquals(Match.parse("GET|HEAD:/a,GET|HEAD:/b"), Match.of(List.of("get", "HEAD"), "/a", "/b"));
        assertEquals("match needs at least one path pattern",
                assertThrows(IllegalArgumentException.class, () -> Match.of(List.of())).getMessage());
    }

    @Test
    void parse_invalid_failsWithTheRule() {
        assertEquals("match pattern must not contain whitespace, ',' or control characters but was '/a\tb' in '/a\tb'",
                assertThrows(IllegalArgumentException.class, () -> Match.paths("/a\tb")).getMessage());
        assertEquals("match pattern must start with '/' or '*' but was '' in 'GET:'",
                assertThrows(IllegalArgumentException.class, () -> Match.parse("GET:")).getMessage());
    }
}
