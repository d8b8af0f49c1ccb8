package io.github.sluice.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.key.KeyResolvers;
import io.github.sluice.key.Keys;
import io.github.sluice.store.KeyBytes;
import io.github.sluice.testing.FakeRequest;
import io.github.sluice.testing.HostileKeys;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Two keys that differ in any way never share state: not through the length bound's digest, not
 * through the encoding a digest is taken over, not through trimming, not through a literal digest
 * sent as a key. Over arbitrary strings (random code units, lone surrogates, controls, keys over
 * {@code max-key-length}), through the real derivation and the real in-memory registry.
 */
class KeyIdentityPropertyTest {

    private static final int MAX = 64;
    private static final List<String> KEYS = HostileKeys.distinct(25, 1500, MAX);

    @Test
    void bound_distinctKeys_haveDistinctBoundForms() {
        Map<String, String> seen = new HashMap<>();
        for (String k : KEYS) {
            String b = Keys.bound(k, MAX);
            String before = seen.put(b, k);
            assertEquals(null, before, () -> "'" + esc(k) + "' and '" + esc(seen.get(b)) + "' share " + b);
            assertTrue(b.length() <= MAX, b);
        }
    }

    @Test
    void encode_distinctStrings_haveDistinctBytes() {
        Map<ByteBuffer, String> seen = new HashMap<>();
        for (String k : KEYS) {
            String before = seen.put(ByteBuffer.wrap(KeyBytes.encode(k)), k);
            assertEquals(null, before, () -> "'" + esc(k) + "' encodes as '" + esc(seen.get(ByteBuffer.wrap(KeyBytes.encode(k)))) + "'");
        }
    }

    @Test
    void encode_wellFormedString_isItsUtf8_soStoredDigestsKeepTheirNames() {
        Random rnd = new Random(7);
        for (int i = 0; i < 2000; i++) {
            StringBuilder b = new StringBuilder();
            for (int j = rnd.nextInt(40); j > 0; j--) {
                int cp;
                do {
                    cp = rnd.nextInt(4) == 0 ? rnd.nextInt(Character.MAX_CODE_POINT + 1) : rnd.nextInt(0x800);
                } while (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
                b.appendCodePoint(cp);
            }
            String s = b.toString();
            assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), KeyBytes.encode(s), () -> esc(s));
        }
    }

    @Test
    void encode_unpairedSurrogate_isItsCodePointsThreeBytes_neverAQuestionMark() {
        assertArrayEquals(new byte[] {'b', (byte) 0xED, (byte) 0xA0, (byte) 0x80}, KeyBytes.encode("b\uD800"));
        assertArrayEquals(new byte[] {(byte) 0xED, (byte) 0xB0, (byte) 0x80, 'b'}, KeyBytes.encode("\uDC00b"));
        assertArrayEquals(new byte[] {(byte) 0xF0, (byte) 0x90, (byte) 0x80, (byte) 0x80, (byte) 0xED, (byte) 0xA0,
            (byte) 0x80}, KeyBytes.encode("\uD800\uDC00\uD800"), "a pair stays one code point, the lone one after it is kept");
    }

    @Test
    void hash_loginsDifferingOnlyInAnUnpairedSurrogate_areDistinct() {
        String a = Keys.hash("bob\uD800");
        String b = Keys.hash("bob\uDBFF");
        String c = Keys.hash("bob\uDC00");
        String q = Keys.hash("bob?");

        assertEquals(4, java.util.Set.of(a, b, c, q).size());
    }

    @Test
    void enforcer_distinctPrincipalsAttributesAndCustomKeys_neverShareABucket() {
        // Given one-permit policies keyed by each application-provided source, not trimmed
        for (String key : new String[] {"principal", "attribute:user", "custom", "principal|ip"}) {
            EnforcerFixture f = new EnforcerFixture();
            Enforcer.Builder b = f.builder().maxKeyLength(MAX);
            if (key.equals("custom")) {
                Function<io.github.sluice.request.RequestView, String> user = r -> r.principal();
                b.policy(io.github.sluice.policy.Policy.builder("one")
                        .algorithm(io.github.sluice.algorithm.FixedWindow.of(1, java.time.Duration.ofHours(1)))
                        .key(KeyResolvers.custom("user", user)).build());
            } else {
                b.policy(io.github.sluice.policy.Policy.parse("one = fixed-window 1/1h key=" + key));
            }
            Enforcer e = b.build();

            // When every key asks once, then every key asks again
            for (String k : KEYS) {
                assertTrue(e.enforce(request(k)).admitted(), () -> key + ": '" + esc(k) + "' found its bucket used");
            }
            // Then each was admitted once (above) and each has a bucket of its own, now empty
            for (String k : KEYS) {
                assertFalse(e.enforce(request(k)).admitted(), () -> key + ": '" + esc(k) + "' has no state");
            }
        }
    }

    @Test
    void header_valuesDifferingBeyondOptionalWhitespace_neverShareABucket() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.builder("one = fixed-window 1/1h key=header:X-Api-Key").maxKeyLength(MAX).build();
        Map<String, String> owner = new HashMap<>();

        for (String k : KEYS) {
            String value = stripOws(k);
            if (value.isEmpty() || value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                continue; // no key; or not a header line
            }
            boolean first = owner.putIfAbsent(value, k) == null;
            assertEquals(first, e.enforce(FakeRequest.get("/").header("X-Api-Key", k)).admitted(),
                    () -> "'" + esc(k) + "' (first: " + first + ")");
        }
        assertTrue(owner.size() > KEYS.size() / 2, "most keys were tried: " + owner.size());
    }

    @Test
    void header_onlySpaceAndTabAreTrimmed() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer("one = fixed-window 1/1h key=header:X-Api-Key");

        assertTrue(e.enforce(FakeRequest.get("/").header("X-Api-Key", "k")).admitted());
        assertFalse(e.enforce(FakeRequest.get("/").header("X-Api-Key", " \tk\t ")).admitted(), "OWS is not the key");
        for (String other : new String[] {"k\u000B", "\u00A0k", "k\u3000", "k\u2028", "\u000Ck"}) {
            assertTrue(e.enforce(FakeRequest.get("/").header("X-Api-Key", other)).admitted(), esc(other));
        }
    }

    @Test
    void principal_surroundingWhitespace_isPartOfTheKey() {
        EnforcerFixture f = new EnforcerFixture();
        Enforcer e = f.enforcer("one = fixed-window 1/1h key=principal");

        assertTrue(e.enforce(FakeRequest.get("/").principal("alice")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").principal(" alice")).admitted());
        assertTrue(e.enforce(FakeRequest.get("/").principal("alice\t")).admitted());
        assertFalse(e.enforce(FakeRequest.get("/").principal("alice")).admitted());
        assertNotEquals(Keys.bound(" alice", MAX), Keys.bound("alice", MAX));
    }

    private static FakeRequest request(String key) {
        return FakeRequest.get("/").principal(key).attribute("user", key);
    }

    private static String stripOws(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && (s.charAt(from) == ' ' || s.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (s.charAt(to - 1) == ' ' || s.charAt(to - 1) == '\t')) {
            to--;
        }
        return s.substring(from, to);
    }

    /** The key with every unit outside printable ASCII escaped, its middle cut if long, for messages. */
    private static String esc(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            b.append(c >= 0x20 && c < 0x7f ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return b.length() > 80 ? b.substring(0, 20) + "..." + b.substring(b.length() - 50) : b.toString();
    }
}
