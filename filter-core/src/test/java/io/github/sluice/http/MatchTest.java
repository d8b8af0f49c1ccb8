package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void matches_randomPathsAgreeWithARegexReference() {
        Random random = new Random(7);
        String alphabet = "/ab*";
        for (int c = 0; c < 20_000; c++) {
            StringBuilder p = new StringBuilder("/");
            for (int i = random.nextInt(6); i > 0; i--) {
                p.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            StringBuilder s = new StringBuilder("/");
            for (int i = random.nextInt(8); i > 0; i--) {
                s.append("/ab".charAt(random.nextInt(3)));
            }
            String pattern = p.toString();
            String path = s.toString();
            boolean expected = Pattern.matches(pattern.replace("*", ".*"), path)
                    || (pattern.endsWith("/*") && path.equals(pattern.substring(0, pattern.length() - 2)));
            assertEquals(expected, Match.paths(pattern).matches("GET", path), pattern + " vs " + path);
        }
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
