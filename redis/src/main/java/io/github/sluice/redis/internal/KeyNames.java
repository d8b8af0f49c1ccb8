package io.github.sluice.redis.internal;

import io.github.sluice.store.KeyBytes;
import io.lettuce.core.cluster.SlotHash;
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
 * of an IPv4 address can be reversed by trying all 2^32 addresses; a keyed hash cannot), taken
 * over the key's lossless encoding ({@link KeyBytes#encode}: UTF-8, with unpaired surrogates
 * kept), so two different client keys never share a Redis key. The hash is a Redis Cluster hash tag, so every policy of one client key lands in one slot and can be
 * decided by one script.
 *
 * <p>Hashing costs a digest per call, so the decision path asks {@link #tag(String)}, which
 * remembers the tags of recent client keys in a direct-mapped table of {@value #TAGS} entries
 * (a new key overwrites its entry): a hot key is hashed once, not once per request, and its tag's
 * bytes and cluster slot are ready to be written.
 *
 * <p>Thread-safe: digests are per thread; cached tags are immutable.
 */
public final class KeyNames {

    /** Client keys whose tags are remembered, at most (a power of two). */
    public static final int TAGS = 4096;

    private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();
    private static final int HASH_BYTES = 15;

    private final String prefix;
    private final ThreadLocal<Hasher> hashers;
    /** Racy by design: a tag has only final fields, so any entry read is a whole one. */
    private final Tag[] tags = new Tag[TAGS];

    /**
     * A client key's hash tag, ready to be written after a policy's key head.
     *
     * @param key the client key
     * @param braced the ASCII bytes of {@code {<hash>}}
     * @param slot the Redis Cluster slot of every key carrying this tag
     */
    public record Tag(String key, byte[] braced, int slot) {
    }

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
     * @param policy the policy's name
     * @return the bytes every key of the policy starts with, {@code <prefix>:<policy>:}
     */
    public byte[] head(String policy) {
        return (prefix + ':' + policy + ':').getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param key the client key
     * @return the URL-safe Base64 of the first 120 bits of its (keyed) SHA-256: 20 characters
     */
    public String hash(String key) {
        return new String(hashBytes(key), StandardCharsets.US_ASCII);
    }

    /**
     * Returns the client key's tag, from the table when the key was seen recently.
     *
     * @param key the client key
     * @return its tag
     */
    public Tag tag(String key) {
        int i = index(key);
        Tag t = tags[i];
        if (t != null && t.key.equals(key)) {
            return t;
        }
        byte[] hash = hashBytes(key);
        byte[] braced = new byte[hash.length + 2];
        braced[0] = '{';
        System.arraycopy(hash, 0, braced, 1, hash.length);
        braced[braced.length - 1] = '}';
        t = new Tag(key, braced, SlotHash.getSlot(braced));
        tags[i] = t;
        return t;
    }

    /** @return the prefix */
    public String prefix() {
        return prefix;
    }

    private byte[] hashBytes(String key) {
        byte[] head = new byte[HASH_BYTES];
        // Lossless: getBytes(UTF_8) would write '?' for every unpaired surrogate, and keys that
        // differ only there would share one Redis key. Identical to UTF-8 for well-formed keys,
        // so the names of keys stored before this encoding did not change.
        hashers.get().digest(KeyBytes.encode(key), head);
        return BASE64.encode(head);
    }

    private static int index(String key) {
        int h = key.hashCode() * 0x9E3779B9;
        return (h ^ (h >>> 16)) & (TAGS - 1);
    }

    private static final class Hasher {
        private final MessageDigest sha;
        private final Mac mac;
        private final byte[] out = new byte[32];

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

        /** Writes the first {@code head.length} bytes of the digest of {@code input}. */
        void digest(byte[] input, byte[] head) {
            try {
                if (sha != null) {
                    sha.update(input);
                    sha.digest(out, 0, out.length);
                } else {
                    mac.update(input);
                    mac.doFinal(out, 0);
                }
            } catch (GeneralSecurityException | IllegalStateException e) {
                throw new IllegalStateException("hashing failed", e);
            }
            System.arraycopy(out, 0, head, 0, head.length);
        }
    }
}
