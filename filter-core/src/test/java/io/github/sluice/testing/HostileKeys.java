package io.github.sluice.testing;

import io.github.sluice.key.Keys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Distinct keys that a lossy or normalising key derivation would merge: random code units (lone
 * surrogates of both kinds, valid pairs, control characters, Unicode separators and format
 * characters, whitespace of every kind, {@code '?'} and U+FFFD, which a lossy encoder writes for
 * what it cannot encode), keys that differ only in one such unit, keys on both sides of the
 * length bound, and literal keys equal to another key's digest. Deterministic for a seed.
 */
public final class HostileKeys {

    /** Code units a lossy or trimming derivation would confuse. */
    private static final char[] UNITS = {
        'a', 'b', 'Z', '0', ':', '|', '{', '}', '?', '\uFFFD', ' ', '\t', '\n', '\r', '\u000B', '\u000C', '\u0000',
        '\u001B', '\u007F', '\u0085', '\u00A0', '\u2028', '\u2029', '\u202E', '\u200B', '\uFEFF', '\u3000', '\u00E9',
        '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D', '\uDE00',
    };

    /** Suffixes each base key is varied with: a derivation that merges any two of them is wrong. */
    private static final String[] VARIANTS = {
        "", "?", "\uFFFD", "\uD800", "\uDBFF", "\uDC00", "\uDFFF", "\uD800\uDC00", "\uDC00\uD800", "\uD800?",
        "\uD800\uD800", " ", "  ", "\t", "\u000B", "\u00A0", "\u2028", "\u3000", "\n", "\u0000",
    };

    private HostileKeys() {
    }

    /**
     * Returns distinct keys, none empty.
     *
     * @param seed the random seed
     * @param random how many random keys to add to the crafted ones
     * @param maxKeyLength the length bound the keys will be put through; some keys exceed it by
     *     a little and some by a lot, some stay just under it
     * @return distinct keys, in a stable order
     */
    public static List<String> distinct(long seed, int random, int maxKeyLength) {
        Random rnd = new Random(seed);
        Set<String> keys = new LinkedHashSet<>();
        String[] bases = {"bob", "alice", "x".repeat(maxKeyLength - 1), "y".repeat(maxKeyLength + 40),
            Keys.HASH_PREFIX + "bob"};
        for (String base : bases) {
            for (String v : VARIANTS) {
                keys.add(base + v);
                keys.add(v + base);
            }
        }
        for (int i = 0; i < random; i++) {
            int length = switch (rnd.nextInt(4)) {
                case 0 -> 1 + rnd.nextInt(8);
                case 1 -> 1 + rnd.nextInt(maxKeyLength);
                case 2 -> maxKeyLength - 2 + rnd.nextInt(5);
                default -> maxKeyLength + 1 + rnd.nextInt(3 * maxKeyLength);
            };
            StringBuilder b = new StringBuilder(length);
            for (int j = 0; j < length; j++) {
                b.append(rnd.nextInt(4) == 0 ? (char) rnd.nextInt(0x10000) : UNITS[rnd.nextInt(UNITS.length)]);
            }
            keys.add(b.toString());
        }
        // A client who sends another key's digest verbatim must not reach that key's state.
        List<String> digests = new ArrayList<>();
        for (String k : keys) {
            if (rnd.nextInt(8) == 0 || k.length() > maxKeyLength) {
                digests.add(Keys.hash(k));
            }
        }
        keys.addAll(digests);
        keys.remove("");
        return List.copyOf(keys);
    }
}
