package io.github.sluice.key;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Bounds the length of keys: a key longer than the bound is replaced by a digest, so that a
 * client cannot make the registry hold megabytes per key, and raw over-long identities (tokens,
 * long header values) are never stored or logged.
 *
 * <p>The replacement is {@code sha256:} followed by the first 32 characters of the base64url
 * SHA-256 of the key's UTF-8 bytes (192 bits: collisions are out of reach).
 *
 * <p>Thread-safe.
 */
public final class Keys {

    /** The default bound, in characters. */
    public static final int DEFAULT_MAX_LENGTH = 128;
    /** The prefix of a hashed key. */
    public static final String HASH_PREFIX = "sha256:";

    private static final int HASH_CHARS = 32;

    private Keys() {
    }

    /**
     * Returns {@code key} if it has at most {@code maxLength} characters, else its digest.
     *
     * @param key the key, or {@code null}
     * @param maxLength the bound, {@code >= 40} so that a digest fits
     * @return the key, its digest, or {@code null} if {@code key} is null
     */
    public static String bound(String key, int maxLength) {
        if (key == null || key.length() <= maxLength) {
            return key;
        }
        return hash(key);
    }

    /**
     * Returns the digest form of a key.
     *
     * @param key the key
     * @return {@code sha256:} and 32 base64url characters
     */
    public static String hash(String key) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        byte[] digest = sha.digest(key.getBytes(StandardCharsets.UTF_8));
        String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        return HASH_PREFIX + b64.substring(0, HASH_CHARS);
    }
}
