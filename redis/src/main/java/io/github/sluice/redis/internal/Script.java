package io.github.sluice.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The one Lua script that decides, releases and renews for every algorithm: the prelude, one file
 * per algorithm, and the dispatcher, concatenated from the class path.
 *
 * <p>It is called by {@code EVALSHA} ({@link ScriptCall}); when Redis answers {@code NOSCRIPT}
 * (after a restart or a failover the script cache is empty) the same call is repeated once with
 * {@code EVAL}, which also caches the script again. Immutable and thread-safe.
 */
public final class Script {

    /** The resource files, in the order they are concatenated. */
    static final List<String> PARTS = List.of("prelude", "token-bucket", "gcra", "fixed-window",
            "sliding-window", "leaky-bucket", "shaping", "smooth-bursty", "sliding-log", "concurrency", "main");

    private static final String DIR = "/io/github/sluice/redis/lua/";

    private final String source;
    private final String sha;
    /** {@code EVALSHA <sha>}, encoded once. */
    private final byte[] evalshaHead;
    /** {@code EVAL <source>}, encoded once. */
    private final byte[] evalHead;

    private Script(String source) {
        this.source = source;
        this.sha = sha1(source);
        this.evalshaHead = concat(Resp.encoded("EVALSHA"), Resp.encoded(sha));
        byte[] text = source.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("$" + text.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        this.evalHead = concat(Resp.encoded("EVAL"), concat(head, concat(text, new byte[] {'\r', '\n'})));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /**
     * Loads the script from the class path.
     *
     * @return the script
     * @throws UncheckedIOException if a part is missing (a broken jar)
     */
    public static Script load() {
        StringBuilder sb = new StringBuilder(16_384);
        for (String part : PARTS) {
            try (InputStream in = Script.class.getResourceAsStream(DIR + part + ".lua")) {
                if (in == null) {
                    throw new UncheckedIOException(new IOException("missing resource " + DIR + part + ".lua"));
                }
                sb.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Script(sb.toString());
    }

    /** @return the script's text */
    public String source() {
        return source;
    }

    /** @return the SHA-1 by which Redis caches the script, lower-case hex */
    public String sha() {
        return sha;
    }

    /** @return the command and first argument of a call by digest, as the protocol writes them */
    byte[] evalshaHead() {
        return evalshaHead;
    }

    /** @return the command and first argument of a call with the source */
    byte[] evalHead() {
        return evalHead;
    }

    private static String sha1(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }
}
