package io.github.sluice.redis.internal;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.CRC16;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;

/**
 * Builds Redis key names {@code <prefix>:<policy>:{<hash of key>}}.
 *
 * <p>The client key (an address, an API key, a user name) is never stored: it is replaced by the
 * first 120 bits of its SHA-256, or of its HMAC-SHA-256 when a secret is configured (a plain hash
 * of an IPv4 address can be reversed by trying all 2^32 addresses; a keyed hash cannot), in
 * URL-safe Base64 without padding (20 characters), taken over the key's lossless encoding
 * ({@link io.github.sluice.store.KeyBytes#encode}: UTF-8, with unpaired surrogates kept), so two
 * different client keys never share a Redis key, and a name's length does not depend on its key's.
 * The hash is a Redis Cluster hash tag, so every policy of one client key lands in one slot and
 * can be decided by one script.
 *
 * <h2>The decision path</h2>
 * A {@link Part} carries its policy's {@link Head} and the client key itself; the key's name is
 * hashed when the call is written ({@link #write(ByteBuf, Part)}, on the client's I/O thread),
 * straight into the client's output buffer, and, for a request with several policies, when its
 * parts are grouped by cluster slot ({@link #slot(Part)}). Neither allocates: the key is encoded a
 * chunk at a time into a per-thread buffer that feeds a per-thread digest, and the HMAC is
 * computed on that same digest from pads prepared once; the part holds no hash, so a decision
 * carries no more than the reference to its key. A decision therefore costs the same, in time and
 * in bytes, whether its key was seen a moment ago or never: nothing is cached, and a flood of new
 * keys cannot make the path slower or evict anything. (A table of recent keys' tags used to spare
 * a hot key its hash; a key it missed cost a digest, an encoding and four new objects, 605 to 687
 * bytes per decision on 10,000 keys against 475 to 502 on 1,000.)
 *
 * <p>The names are those the table-based code produced (SHA-256 and HMAC-SHA-256 as the JDK's
 * {@code MessageDigest} and {@code Mac} compute them, over the same bytes), so stored state keeps
 * its name across the change.
 *
 * <p>Thread-safe: digests and buffers are per thread.
 */
public final class KeyNames {

    /** Characters of the hash in a key name: 120 bits in Base64. */
    public static final int HASH_CHARS = 20;
    /** Bytes of the hash tag after a key's head: the hash between braces. */
    public static final int TAG_BYTES = HASH_CHARS + 2;

    private static final byte[] BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            .getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    /** SHA-256's block: an HMAC key is padded (or hashed, if longer) to it. */
    private static final int BLOCK = 64;
    /** Bytes of a key encoded before they go to the digest; a character takes at most 4. */
    private static final int CHUNK = 256;

    private final String prefix;
    private final ThreadLocal<Hasher> hashers;

    /**
     * @param prefix the first segment of every key; must not contain {@code ':'}, {@code '{'} or
     *     {@code '}'}
     * @param secret the HMAC secret, or {@code null} for a plain SHA-256
     * @throws IllegalArgumentException if the prefix is empty or contains a reserved character,
     *     or the secret is empty
     */
    public KeyNames(String prefix, byte[] secret) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty() || prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0
                || prefix.indexOf(':') >= 0) {
            throw new IllegalArgumentException(
                    "prefix must be non-empty without ':', '{' or '}' but was '" + prefix + "'");
        }
        if (secret != null && secret.length == 0) {
            throw new IllegalArgumentException("secret must not be empty");
        }
        this.prefix = prefix;
        byte[][] pads = secret == null ? null : pads(secret);
        this.hashers = ThreadLocal.withInitial(() -> new Hasher(pads));
    }

    /**
     * The HMAC's inner and outer pads (RFC 2104): the secret, hashed first if longer than a
     * block, padded with zeros to a block, XORed with {@code 0x36} and with {@code 0x5c}.
     */
    private static byte[][] pads(byte[] secret) {
        byte[] k = secret.length > BLOCK ? sha256().digest(secret) : secret;
        byte[] inner = new byte[BLOCK];
        byte[] outer = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            byte b = i < k.length ? k[i] : 0;
            inner[i] = (byte) (b ^ 0x36);
            outer[i] = (byte) (b ^ 0x5c);
        }
        return new byte[][] {inner, outer};
    }

    /**
     * The name of a client key's state under a policy. Allocates: for tests, administration and
     * inspection, not for the decision path.
     *
     * @param policy the policy's name
     * @param key the client key
     * @return the Redis key name
     */
    public String key(String policy, String key) {
        return prefix + ':' + policy + ":{" + hash(key) + '}';
    }

    /**
     * @param policy the policy's name
     * @return the head of every key of the policy, {@code <prefix>:<policy>:}, followed by its
     *     client key's hash tag when written
     */
    public Head head(String policy) {
        return new Head((prefix + ':' + policy + ':').getBytes(StandardCharsets.US_ASCII), this);
    }

    /**
     * What a part's key starts with: its policy's {@code <prefix>:<policy>:} and the names that
     * hash the client key after it, or a whole key of its own (the probe's). Immutable.
     */
    public static final class Head {
        private final byte[] bytes;
        /** The names that hash the client key after the head, or {@code null} for a whole key. */
        private final KeyNames names;

        /** A spread of the head's bytes, for {@link ScriptCall#keyHash}. */
        private final int spread;

        private Head(byte[] bytes, KeyNames names) {
            this.bytes = bytes;
            this.names = names;
            this.spread = Arrays.hashCode(bytes);
        }

        /**
         * @param other another head
         * @return whether both start the same Redis keys: the same object, or equal bytes hashed
         *     by the same names (a client key after both names the same key)
         */
        boolean sameAs(Head other) {
            return this == other || (names == other.names && Arrays.equals(bytes, other.bytes));
        }

        /** @return a spread of the head's bytes, the same for equal heads */
        int spread() {
            return spread;
        }

        /**
         * A whole key, written as it is: no client key's hash follows it.
         *
         * @param key the key's bytes, ASCII (not copied: not to be changed)
         * @return the head
         */
        public static Head whole(byte[] key) {
            return new Head(Objects.requireNonNull(key, "key"), null);
        }

        /** @return whether this head is a whole key */
        public boolean isWhole() {
            return names == null;
        }

        @Override
        public String toString() {
            return new String(bytes, StandardCharsets.US_ASCII) + (names == null ? "" : "{...}");
        }
    }

    /**
     * The hash that stands for a client key in its names. Allocates (the string).
     *
     * @param key the client key
     * @return the URL-safe Base64 of the first 120 bits of its (keyed) SHA-256: 20 characters
     */
    public String hash(String key) {
        Hasher h = hashers.get();
        h.hash(key);
        return new String(h.chars, StandardCharsets.US_ASCII);
    }

    /**
     * @param key the client key
     * @return the Redis Cluster slot of its names (what {@code SlotHash.getSlot} computes for
     *     them); allocates nothing
     */
    public int slot(String key) {
        Hasher h = hashers.get();
        h.hash(key);
        return h.slot;
    }

    /** @return the prefix */
    public String prefix() {
        return prefix;
    }

    /**
     * Writes a part's key, as a RESP bulk string, into the client's buffer: its head, then, unless
     * the head is a whole key, {@code {<hash of the part's client key>}}, hashed on this thread.
     * Allocates nothing.
     *
     * @param buf the buffer
     * @param p the part
     * @throws IllegalStateException if the part has no client key and its head is not a whole key:
     *     it would otherwise name the policy's head alone, a key every client would share
     */
    public static void write(ByteBuf buf, Part p) {
        Head head = p.head;
        if (head.names == null) {
            Resp.bulk(buf, head.bytes);
            return;
        }
        Hasher h = head.names.hashers.get();
        h.hash(clientKey(p));
        Resp.header(buf, head.bytes.length + TAG_BYTES);
        buf.writeBytes(head.bytes);
        buf.writeByte('{');
        buf.writeBytes(h.chars);
        buf.writeByte('}');
        buf.writeBytes(CRLF);
    }

    /**
     * The bytes of a part's key (for the cluster client, which routes a call by its first key).
     *
     * @param p the part
     * @return a new array
     * @throws IllegalStateException if the part has no client key and its head is not a whole key
     */
    public static byte[] bytes(Part p) {
        Head head = p.head;
        if (head.names == null) {
            return head.bytes.clone();
        }
        Hasher h = head.names.hashers.get();
        h.hash(clientKey(p));
        byte[] key = Arrays.copyOf(head.bytes, head.bytes.length + TAG_BYTES);
        key[head.bytes.length] = '{';
        System.arraycopy(h.chars, 0, key, head.bytes.length + 1, HASH_CHARS);
        key[key.length - 1] = '}';
        return key;
    }

    /**
     * @param p a part whose head is not a whole key
     * @return the Redis Cluster slot of its key
     * @throws IllegalStateException if the part has no client key
     */
    public static int slot(Part p) {
        if (p.head.names == null) {
            throw new IllegalStateException("a whole key's slot is its own: " + p.head);
        }
        return p.head.names.slot(clientKey(p));
    }

    private static String clientKey(Part p) {
        if (p.key == null) {
            throw new IllegalStateException("a part of " + p.head + " has no client key to name");
        }
        return p.key;
    }

    /**
     * The Base64 digit {@code i} of the 120 bits {@code high} (bits 0 to 63) and {@code low} (bits
     * 64 to 119, in its low 56 bits), most significant first.
     */
    private static int sextet(long high, long low, int i) {
        if (i < 10) {
            return (int) (high >>> (58 - 6 * i)) & 63;
        }
        if (i == 10) {
            return (int) (((high & 0xF) << 2) | (low >>> 54));
        }
        return (int) (low >>> (114 - 6 * i)) & 63;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** One thread's digest and buffers, and the last hash it computed. */
    private static final class Hasher {
        private final MessageDigest sha = sha256();
        /** The HMAC's pads, or {@code null} for a plain SHA-256. */
        private final byte[] inner;
        private final byte[] outer;
        private final byte[] chunk = new byte[CHUNK];
        private final byte[] out = new byte[32];
        final byte[] chars = new byte[HASH_CHARS];
        int slot;

        Hasher(byte[][] pads) {
            this.inner = pads == null ? null : pads[0];
            this.outer = pads == null ? null : pads[1];
        }

        /** Hashes {@code key} into {@link #chars} (its Base64) and {@link #slot}. */
        void hash(String key) {
            try {
                if (inner != null) {
                    sha.update(inner);
                }
                feed(key);
                sha.digest(out, 0, out.length);
                if (outer != null) {
                    sha.update(outer);
                    sha.update(out, 0, out.length);
                    sha.digest(out, 0, out.length);
                }
            } catch (DigestException e) {
                throw new IllegalStateException("hashing failed", e);
            }
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = h << 8 | (out[i] & 0xFF);
            }
            long l = 0;
            for (int i = 8; i < 15; i++) {
                l = l << 8 | (out[i] & 0xFF);
            }
            for (int i = 0; i < HASH_CHARS; i++) {
                chars[i] = BASE64[sextet(h, l, i)];
            }
            // What SlotHash.getSlot computes for a key whose tag is these characters.
            slot = CRC16.crc16(chars, 0, HASH_CHARS) % SlotHash.SLOT_COUNT;
        }

        /**
         * Feeds the key's lossless encoding to the digest a chunk at a time: UTF-8 for every code
         * point, and for an unpaired surrogate the three bytes of its code point, byte for byte
         * what {@link io.github.sluice.store.KeyBytes#encode} returns, without the array.
         */
        private void feed(String key) {
            byte[] c = chunk;
            int o = 0;
            int n = key.length();
            for (int i = 0; i < n; i++) {
                if (o > CHUNK - 4) {
                    sha.update(c, 0, o);
                    o = 0;
                }
                char ch = key.charAt(i);
                if (ch < 0x80) {
                    c[o++] = (byte) ch;
                } else if (ch < 0x800) {
                    c[o++] = (byte) (0xC0 | (ch >> 6));
                    c[o++] = (byte) (0x80 | (ch & 0x3F));
                } else if (Character.isHighSurrogate(ch) && i + 1 < n
                        && Character.isLowSurrogate(key.charAt(i + 1))) {
                    int cp = Character.toCodePoint(ch, key.charAt(++i));
                    c[o++] = (byte) (0xF0 | (cp >> 18));
                    c[o++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    c[o++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    c[o++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    // Three bytes: the rest of the basic plane, and an unpaired surrogate as if it
                    // were a code point (never '?', which would merge keys).
                    c[o++] = (byte) (0xE0 | (ch >> 12));
                    c[o++] = (byte) (0x80 | ((ch >> 6) & 0x3F));
                    c[o++] = (byte) (0x80 | (ch & 0x3F));
                }
            }
            sha.update(c, 0, o);
        }
    }
}
