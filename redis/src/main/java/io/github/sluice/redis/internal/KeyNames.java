package io.github.sluice.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Builds Redis key names {@code <prefix>:<policy>:{<hash of key>}}.
 *
 * <p>The client key (an address, an API key, a user name) is never stored: it is replaced by the
 * first 120 bits of its SHA-256, or of its HMAC-SHA-256 when a secret is configured (a plain hash
 * of an IPv4 address can be reversed by trying all 2^32 addresses; a keyed hash cannot). The hash
 * is a Redis Cluster hash tag, so every policy of one client key lands in one slot and can be
 * decided by one script.
 *
 * <p>Thread-safe: digests are per thread.
 */
public final class KeyNames {

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final int HASH_BYTES = 15;

    private final String prefix;
    private final ThreadLocal<Hasher> hashers;

    /**
     * @param prefix the first segment of every key; must not contain {@code ':'}, {@code '{'} or
     *     {@code '}'}
     * @param secret the HMAC secret, or {@code null} for a plain SHA-256
     * @throws IllegalArgumentException if the prefix is empty or contains a reserved character
     */
    public KeyNames(String prefix, byte[] secret) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0
                || prefix.indexOf(':') >= 0) {
            throw new IllegalArgumentException(
                    "prefix must be non-empty without ':', '{' or '}' but was '" + prefix + "'");
        }
        this.prefix = prefix;
        byte[] key = secret == null ? null : secret.clone();
        this.hashers = ThreadLocal.withInitial(() -> new Hasher(key));
    }

    /**
     * @param policy the policy's name
     * @param key the client key
     * @return the Redis key name
     */
    public String key(String policy, String key) {
        return prefix + ':' + policy + ":{" + hash(key) + '}';
    }

    /**
     * @param key the client key
     * @return the URL-safe Base64 of the first 120 bits of its (keyed) SHA-256: 20 characters
     */
    public String hash(String key) {
        byte[] digest = hashers.get().digest(key.getBytes(StandardCharsets.UTF_8));
        byte[] head = new byte[HASH_BYTES];
        System.arraycopy(digest, 0, head, 0, HASH_BYTES);
        return BASE64.encodeToString(head);
    }

    /** @return the prefix */
    public String prefix() {
        return prefix;
    }

    private static final class Hasher {
        private final MessageDigest sha;
        private final Mac mac;

        Hasher(byte[] secret) {
            try {
                if (secret == null) {
                    this.sha = MessageDigest.getInstance("SHA-256");
                    this.mac = null;
                } else {
                    this.sha = null;
                    this.mac = Mac.getInstance("HmacSHA256");
                    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
                }
            } catch (GeneralSecurityException e) {
                // Every Java platform must provide SHA-256 and HmacSHA256.
                throw new IllegalStateException("SHA-256 is not available", e);
            }
        }

        byte[] digest(byte[] input) {
            return sha != null ? sha.digest(input) : mac.doFinal(input);
        }
    }
}
