package io.github.sluice.key;

import io.github.sluice.store.KeyBytes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Bounds the length of keys: a key longer than the bound is replaced by a digest, so that a
 * client cannot make the registry hold megabytes per key, and raw over-long identities (tokens,
 * long header values) are never stored or logged.
 *
 * <p>The replacement is {@code sha256:} followed by the first 32 characters of the base64url
 * SHA-256 of the key's {@linkplain KeyBytes#encode bytes} (192 bits: collisions are out of reach).
 *
 * <p><b>Lossless.</b> A key is hashed from {@link KeyBytes#encode}, which is UTF-8 for every
 * well-formed string and encodes an unpaired surrogate as the three bytes of its code point
 * (generalized UTF-8, also called WTF-8) instead of the {@code '?'} that {@code getBytes(UTF_8)}
 * writes: two keys that differ in any code unit ({@code bob} followed by U+D800 or by U+DC00,
 * say) never hash alike, so they never share a bucket, here or in a shared store.
 *
 * <p><b>The digest namespace is reserved.</b> Every key that starts with {@value #HASH_PREFIX}
 * is hashed too, whatever its length, so no raw key can ever equal a digest: a client that sends
 * the digest of someone's long token verbatim gets a bucket of its own, not theirs, and cannot
 * match an allow-list entry written as a digest.
 *
 * <p>Thread-safe.
 */
public final class Keys {

    /** The default bound, in characters. */
    public static final int DEFAULT_MAX_LENGTH = 128;
    /** The prefix of a hashed key; no other key starts with it. */
    public static final String HASH_PREFIX = "sha256:";
    /** The length of a hashed key: the prefix and 32 base64url characters. */
    public static final int HASH_LENGTH = 39;

    private static final int HASH_CHARS = 32;

    private Keys() {
    }

    /**
     * Returns {@code key} if it has at most {@code maxLength} characters and does not start with
     * {@value #HASH_PREFIX}, else its digest.
     *
     * @param key the key, or {@code null}
     * @param maxLength the bound, {@code >= 40} so that a digest fits
     * @return the key, its digest, or {@code null} if {@code key} is null
     */
    public static String bound(String key, int maxLength) {
        if (key == null || (key.length() <= maxLength && !key.startsWith(HASH_PREFIX))) {
            return key;
        }
        return hash(key);
    }

    /**
     * Tells whether a text has the form of a digest: {@value #HASH_PREFIX} and 32 base64url
     * characters.
     *
     * @param text the text
     * @return {@code true} if it could be a key returned by {@link #hash}
     */
    public static boolean isDigest(String text) {
        if (text.length() != HASH_LENGTH || !text.startsWith(HASH_PREFIX)) {
            return false;
        }
        for (int i = HASH_PREFIX.length(); i < HASH_LENGTH; i++) {
            char c = text.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns the digest form of a key.
     *
     * @param key the key
     * @return {@code sha256:} and 32 base64url characters
     * @throws NullPointerException if {@code key} is null
     */
    public static String hash(String key) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        byte[] digest = sha.digest(KeyBytes.encode(key));
        String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        return HASH_PREFIX + b64.substring(0, HASH_CHARS);
    }
}
