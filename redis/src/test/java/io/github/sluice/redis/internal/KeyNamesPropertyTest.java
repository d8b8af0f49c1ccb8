package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.key.Keys;
import io.github.sluice.store.KeyBytes;
import io.github.sluice.testing.HostileKeys;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Distinct client keys get distinct Redis key names, through the real derivation (the enforcer's
 * length bound, then {@link KeyNames}), over arbitrary strings: lone surrogates, controls,
 * whitespace, keys over the bound, literal digests of other keys. And keys that are well-formed
 * strings keep the names they had before the encoding became lossless.
 */
class KeyNamesPropertyTest {

    private static final int MAX = 128;
    private static final List<String> KEYS = HostileKeys.distinct(2025, 1500, MAX);

    @Test
    void keyAndTag_distinctClientKeys_neverShareARedisKey() throws Exception {
        for (byte[] secret : new byte[][] {null, "0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII)}) {
            KeyNames names = new KeyNames("sluice", secret);
            Map<String, String> byName = new HashMap<>();
            for (String k : KEYS) {
                String bounded = Keys.bound(k, MAX);
                String name = names.key("login", bounded);
                String before = byName.put(name, k);
                assertNull(before, () -> "two client keys share " + name);
                // The decision path writes the same name
                assertEquals(name, KeyNamesTest.written(names, "login", bounded));
            }
            assertEquals(KEYS.size(), byName.size());
        }
    }

    @Test
    void hash_loginsDifferingOnlyInAnUnpairedSurrogate_getDistinctRedisKeys() {
        KeyNames names = new KeyNames("sluice", null);
        List<String> logins = List.of("bob\uD800", "bob\uDBFF", "bob\uDC00", "bob?", "bob\uFFFD");

        assertEquals(logins.size(), Set.copyOf(logins.stream().map(names::hash).toList()).size());
    }

    @Test
    void hash_wellFormedKey_isUnchangedFromUtf8_soStoredStateKeepsItsName() throws Exception {
        KeyNames names = new KeyNames("sluice", null);
        for (String k : KEYS) {
            if (!wellFormed(k)) {
                continue;
            }
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(k.getBytes(StandardCharsets.UTF_8));
            String utf8 = Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(sha, 15));
            assertEquals(utf8, names.hash(k));
        }
        assertArrayEquals("203.0.113.7".getBytes(StandardCharsets.UTF_8), KeyBytes.encode("203.0.113.7"));
    }

    @Test
    void hashedForm_sentVerbatim_neverReachesTheLongKeysState() {
        KeyNames names = new KeyNames("sluice", null);
        String token = "t".repeat(MAX + 1);
        String digest = Keys.bound(token, MAX);

        assertTrue(Keys.isDigest(digest));
        assertTrue(!names.key("p", Keys.bound(digest, MAX)).equals(names.key("p", digest)),
                "a client sending the digest is hashed again, into a name of its own");
    }

    private static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
