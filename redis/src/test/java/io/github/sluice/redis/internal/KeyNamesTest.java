package io.github.sluice.redis.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.sluice.store.KeyBytes;
import io.github.sluice.testing.HostileKeys;
import io.lettuce.core.cluster.SlotHash;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The decision path's key names: the same names as the JDK's SHA-256 and HMAC-SHA-256 over
 * {@link KeyBytes#encode} (so stored state keeps its name), the slot the cluster client computes,
 * and nothing allocated, for a key seen a moment ago as for a new one.
 */
class KeyNamesTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final byte[][] SECRETS = {
        null,
        "0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII),
        bytes(64, 1), // exactly a block: used as is
        bytes(65, 2), // over a block: hashed first
        bytes(300, 3),
    };

    /** Keys of every shape: hostile ones, and long ones whose multi-byte characters straddle chunks. */
    private static List<String> keys() {
        List<String> keys = new ArrayList<>(HostileKeys.distinct(30, 300, 128));
        SplittableRandom random = new SplittableRandom(30);
        String[] pieces = {"a", "\u00e9", "\u20ac", "\uD83D\uDE00", "\uD800", "\uDC00", "?"};
        for (int n : new int[] {63, 64, 65, 85, 86, 255, 256, 257, 1000, 4096}) {
            StringBuilder b = new StringBuilder();
            while (b.length() < n) {
                b.append(pieces[random.nextInt(pieces.length)]);
            }
            keys.add(b.toString());
            keys.add("x".repeat(n));
        }
        keys.add("");
        return keys;
    }

    /** The name the decision path writes for a key: a part's key, written as RESP. */
    static String written(KeyNames names, String policy, String key) {
        Part p = new Part(null, names.head(policy), 1);
        p.key = key;
        ByteBuf buf = Unpooled.buffer();
        KeyNames.write(buf, p);
        String resp = buf.toString(StandardCharsets.US_ASCII);
        String name = resp.substring(resp.indexOf('\n') + 1, resp.length() - 2);
        assertEquals("$" + name.length() + "\r\n" + name + "\r\n", resp);
        assertEquals(name, new String(KeyNames.bytes(p), StandardCharsets.US_ASCII));
        assertEquals(SlotHash.getSlot(name), KeyNames.slot(p), name);
        assertEquals(SlotHash.getSlot(name), names.slot(key), name);
        return name;
    }

    @Test
    void hash_everySecretAndKey_isTheJdkDigestOfTheLosslessEncoding() throws Exception {
        for (byte[] secret : SECRETS) {
            KeyNames names = new KeyNames("sluice", secret);
            for (String key : keys()) {
                assertEquals(reference(secret, key), names.hash(key), key);
            }
        }
    }

    @Test
    void write_everySecretAndKey_isTheKeyNameWithTheSlotTheClusterClientComputes() {
        for (byte[] secret : SECRETS) {
            KeyNames names = new KeyNames("sluice", secret);
            for (String key : keys()) {
                String name = written(names, "per-ip", key);
                assertEquals(names.key("per-ip", key), name);
                assertTrue(name.matches("sluice:per-ip:\\{[A-Za-z0-9_-]{20}}"), name);
            }
        }
    }

    @Test
    void hash_addressKnownBeforeTheChange_keepsItsName() {
        // Computed by the table-based KeyNames (MessageDigest over getBytes(UTF_8)), so a
        // deployment's counters keep their names across the upgrade.
        assertEquals(reference(null, "198.51.100.7"), new KeyNames("sluice", null).hash("198.51.100.7"));
        assertEquals("sluice:p:{" + reference(null, "198.51.100.7") + "}",
                new KeyNames("sluice", null).key("p", "198.51.100.7"));
    }

    @Test
    void writeAndSlot_newKeysAndOneHotKey_allocateNothing() {
        KeyNames names = new KeyNames("sluice", "0123456789abcdef-secret".getBytes(StandardCharsets.US_ASCII));
        KeyNames plain = new KeyNames("sluice", null);
        int n = 20_000;
        String[] fresh = new String[n];
        for (int i = 0; i < n; i++) {
            fresh[i] = "203.0." + (i >> 8) + "." + (i & 255) + "-\u00e9\uD83D\uDE00";
        }
        Part keyed = new Part(null, names.head("per-ip"), 1);
        Part hashed = new Part(null, plain.head("per-ip"), 1);
        ByteBuf buf = Unpooled.buffer(2 * 64 * n);
        // Warm up (the first call of a thread makes its digest and buffers)
        for (int i = 0; i < n; i++) {
            keyed.key = fresh[i];
            KeyNames.write(buf, keyed);
            plain.slot(fresh[i]);
        }

        for (boolean hot : new boolean[] {true, false}) {
            buf.clear();
            long before = THREADS.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < n; i++) {
                String key = hot ? fresh[0] : fresh[i];
                keyed.key = key;
                hashed.key = key;
                KeyNames.write(buf, keyed);
                KeyNames.write(buf, hashed);
                names.slot(key);
            }
            long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;

            // Then nothing per key: a few bytes at most, over 60,000 hashes (the counter is exact)
            assertTrue(bytes < 1_000, (hot ? "one hot key" : "new keys") + " allocated " + bytes + " bytes");
        }
    }

    @Test
    void write_partWithoutAClientKey_isRefusedRatherThanNamingThePolicyAlone() {
        Part p = new Part(null, new KeyNames("sluice", null).head("per-ip"), 1);

        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> KeyNames.write(Unpooled.buffer(), p));
        assertEquals("a part of sluice:per-ip:{...} has no client key to name", e.getMessage());
        assertThrows(IllegalStateException.class, () -> KeyNames.bytes(p));
        assertThrows(IllegalStateException.class, () -> KeyNames.slot(p));
    }

    @Test
    void whole_probeKey_isWrittenAsItsHead() {
        byte[] key = "sluice:~probe:x:{abc}".getBytes(StandardCharsets.US_ASCII);
        Part p = new Part(null, KeyNames.Head.whole(key), 0);
        assertTrue(p.head.isWhole());
        ByteBuf buf = Unpooled.buffer();

        KeyNames.write(buf, p);

        assertEquals("$21\r\nsluice:~probe:x:{abc}\r\n", buf.toString(StandardCharsets.US_ASCII));
        assertArrayEquals(key, KeyNames.bytes(p));
    }

    @Test
    void constructor_emptySecret_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> new KeyNames("sluice", new byte[0]));
    }

    /** The JDK's digest (MessageDigest, or Mac for a secret) of KeyBytes.encode, first 15 bytes. */
    private static String reference(byte[] secret, String key) {
        try {
            byte[] digest;
            if (secret == null) {
                digest = MessageDigest.getInstance("SHA-256").digest(KeyBytes.encode(key));
            } else {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(secret, "HmacSHA256"));
                digest = mac.doFinal(KeyBytes.encode(key));
            }
            return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 15));
        } catch (java.security.GeneralSecurityException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }
}
