package io.github.sluice.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes a store hashes or writes for a client key: lossless, so that two keys that differ in
 * any way never share state. Java's {@code getBytes(UTF_8)} is not: it writes {@code '?'} for
 * every unpaired surrogate (a UTF-16 code unit {@code U+D800..U+DFFF} without its partner, which
 * a client can send), so {@code bob} followed by {@code U+D800}, by {@code U+DC00} or by
 * {@code ?} would all hash alike. Here such a unit is written as the three bytes of its code
 * point (generalized UTF-8, also called WTF-8), and every well-formed string as its UTF-8, so
 * hashes of well-formed keys are what they always were.
 *
 * <p>Used by the length bound of the enforcer ({@code Keys.hash}) and by the Redis store's key
 * names. Stateless and thread-safe.
 */
public final class KeyBytes {

    private KeyBytes() {
    }

    /**
     * Encodes a key losslessly for hashing: the UTF-8 bytes of a well-formed string (so the digest
     * of every such key is what it always was), and for an unpaired surrogate the three bytes
     * {@code ED A0..BF 80..BF} of its code point, which no well-formed string's UTF-8 contains. Two
     * different strings therefore never have the same encoding, which {@code getBytes(UTF_8)}
     * does not promise: it writes {@code '?'} for every unpaired surrogate.
     *
     * @param key the key
     * @return a new array holding its encoding
     * @throws NullPointerException if {@code key} is null
     */
    public static byte[] encode(String key) {
        int n = key.length();
        for (int i = 0; i < n; i++) {
            char c = key.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(key.charAt(i + 1))) {
                    i++;
                } else {
                    return generalized(key);
                }
            }
        }
        // Well-formed: the platform's encoder, which is exact and fast for such strings.
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** Generalized UTF-8: code points as UTF-8, unpaired surrogates as if they were code points. */
    private static byte[] generalized(String key) {
        byte[] out = new byte[key.length() * 3];
        int o = 0;
        for (int i = 0; i < key.length(); ) {
            int cp = key.codePointAt(i); // an unpaired surrogate comes back as itself
            i += Character.charCount(cp);
            if (cp < 0x80) {
                out[o++] = (byte) cp;
            } else if (cp < 0x800) {
                out[o++] = (byte) (0xC0 | (cp >> 6));
                out[o++] = (byte) (0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                out[o++] = (byte) (0xE0 | (cp >> 12));
                out[o++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[o++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                out[o++] = (byte) (0xF0 | (cp >> 18));
                out[o++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[o++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[o++] = (byte) (0x80 | (cp & 0x3F));
            }
        }
        return Arrays.copyOf(out, o);
    }
}
