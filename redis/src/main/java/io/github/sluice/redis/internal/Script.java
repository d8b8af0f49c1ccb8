package io.github.sluice.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one Lua script that decides, releases and renews for every algorithm: the prelude, one file
 * per algorithm, and the dispatcher, assembled from the class path.
 *
 * <h2>Layout: an algorithm is defined only by the calls that use it</h2>
 * Redis runs a script's whole text on every call: whatever its top level defines (functions,
 * tables) is built again each time, for a few microseconds of the single-threaded server per
 * algorithm. So the algorithm files are not placed at the top level: they become the branches of
 * one function, {@code define(kind)}, which the dispatcher calls for the kinds a call names
 * (see {@code main.lua}). A call on a token bucket builds the prelude's helpers and the token
 * bucket, never the other eight algorithms; with one script (one digest, one {@code NOSCRIPT}
 * fallback, one cache entry per server) for every combination of policies in a call. For the same
 * reason the prelude holds only what the common algorithms share; helpers of the sorted-set
 * algorithms (concurrency, sliding log) are {@linkplain #INCLUDES included} in their branches.
 *
 * <p>It is called by {@code EVALSHA} ({@link ScriptCall}); when Redis answers {@code NOSCRIPT}
 * (after a restart or a failover the script cache is empty) the same call is repeated once with
 * {@code EVAL}, which also caches the script again. Immutable and thread-safe.
 */
public final class Script {

    /**
     * The algorithm files, each with the kinds (the dispatch keys of {@link Binding#kind()}) it
     * defines, in the order of {@code define}'s branches.
     */
    static final Map<String, List<String>> ALGORITHMS = algorithms();
    /**
     * The helper files an algorithm's branch includes before its own file: helpers that more than
     * one algorithm needs but the common ones do not, so that they stay out of the top level.
     */
    static final Map<String, List<String>> INCLUDES = Map.of(
            "concurrency", List.of("sorted-sets"), "sliding-log", List.of("sorted-sets"));

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
        StringBuilder sb = new StringBuilder(40_000);
        sb.append(resource("prelude")).append('\n');
        sb.append("-- The algorithms, each defined by the first call that names one of its kinds;")
                .append(" returns A[kind] (nil for an unknown kind).\n");
        sb.append("local function define(kind)\n");
        String branch = "if ";
        for (Map.Entry<String, List<String>> e : ALGORITHMS.entrySet()) {
            sb.append(branch);
            branch = "elseif ";
            String or = "";
            for (String kind : e.getValue()) {
                sb.append(or).append("kind == '").append(kind).append('\'');
                or = " or ";
            }
            sb.append(" then\n");
            for (String include : INCLUDES.getOrDefault(e.getKey(), List.of())) {
                sb.append(resource(include)).append('\n');
            }
            sb.append(resource(e.getKey())).append('\n');
        }
        sb.append("end\nreturn A[kind]\nend\n\n");
        sb.append(resource("main")).append('\n');
        return new Script(sb.toString());
    }

    private static Map<String, List<String>> algorithms() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        // The token bucket first: the most common kind takes the fewest comparisons.
        for (String kind : List.of("token-bucket", "gcra", "fixed-window", "sliding-window", "leaky-bucket",
                "smooth-bursty", "sliding-log", "concurrency")) {
            m.put(kind, List.of(kind));
        }
        m.put("shaping", List.of("shaping", "shaping-earned"));
        return Collections.unmodifiableMap(m);
    }

    private static String resource(String part) {
        try (InputStream in = Script.class.getResourceAsStream(DIR + part + ".lua")) {
            if (in == null) {
                throw new UncheckedIOException(new IOException("missing resource " + DIR + part + ".lua"));
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
