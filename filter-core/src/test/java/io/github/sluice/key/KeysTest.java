package io.github.sluice.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeysTest {

    @Test
    void bound_shortKey_isKeptAsIs() {
        String key = "k".repeat(128);
        assertSame(key, Keys.bound(key, 128));
        assertNull(Keys.bound(null, 128));
    }

    @Test
    void bound_overLongKey_isHashedNeverStoredRaw() {
        String secret = "token-" + "s".repeat(200);

        String bounded = Keys.bound(secret, 128);

        assertTrue(bounded.startsWith("sha256:"), bounded);
        assertEquals(7 + 32, bounded.length());
        assertFalse(bounded.contains("sss"), "no raw part of the key survives");
        assertEquals(bounded, Keys.bound(secret, 128), "the same key always hashes the same");
        assertNotEquals(bounded, Keys.bound(secret + "x", 128));
        assertTrue(bounded.substring(7).matches("[A-Za-z0-9_-]{32}"), "base64url");
    }
}
