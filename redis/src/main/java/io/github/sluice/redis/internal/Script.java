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
import java.util.function.Function;

/**
 * The one Lua script that decides, releases and renews for every algorithm: the prelude, one file
 * per algorithm, and the dispatcher, assembled from the class path; and the same files as a
 * Redis 7 function library.
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
 * <h2>The function library: everything defined once</h2>
 * A Redis 7 function library ({@code FUNCTION LOAD}, then {@code FCALL}) runs its top level once,
 * at load time, and only the registered function on each call. {@link #library()} is made of the
 * same files: a function {@code setup()} holding the prelude, then every algorithm file (with its
 * includes) in its own {@code do ... end} block, so that its locals stay scoped (Lua allows 200
 * active locals per function), and returning the table {@code A} of every kind; a {@code
 * define(kind)} that returns {@code nil} (every kind is in {@code A}); and the dispatcher as the
 * body of the registered function {@code callback(KEYS, ARGV)}, which runs {@code setup()} on its
 * first call only and keeps {@code A} for the calls after. The definitions cannot run at load
 * time itself: Redis 7.0 lets a library's load read no global but {@code redis} (not {@code math}
 * nor {@code string}, which the prelude's top level reads). The script's {@code
 * redis.replicate_commands()} ({@code replication.lua}) is left out: a library's load may only
 * register functions, and a function always replicates its effects. The library and its function
 * are both named {@link #libraryName()}, {@code sluice_} and the first 12 hex digits of the
 * library's SHA-1: two versions of Sluice sharing a server (a rolling upgrade) each load and call
 * their own, and a library of that name on a server is this very text.
 *
 * <p>The script is called by {@code EVALSHA} and the library by {@code FCALL} ({@link
 * ScriptCall}); when Redis answers {@code NOSCRIPT} (after a restart or a failover the script
 * cache is empty) or that the function is not found ({@code FUNCTION FLUSH}, a new node), the
 * same call is repeated once with {@code EVAL} and the script's source, which also caches the
 * script again. Immutable and thread-safe.
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

    /** Where the library's text has its name, before the name is known. */
    private static final String NAME = "@NAME@";

    private final String source;
    private final String sha;
    private final String library;
    private final String libraryName;
    /** {@code EVALSHA <sha>}, encoded once. */
    private final byte[] evalshaHead;
    /** {@code EVAL <source>}, encoded once. */
    private final byte[] evalHead;
    /** {@code FCALL <function>}, encoded once. */
    private final byte[] fcallHead;

    private Script(String source, String libraryTemplate) {
        this.source = source;
        this.sha = sha1(source);
        this.libraryName = "sluice_" + sha1(libraryTemplate).substring(0, 12);
        this.library = libraryTemplate.replace(NAME, libraryName);
        this.evalshaHead = concat(Resp.encoded("EVALSHA"), Resp.encoded(sha));
        byte[] text = source.getBytes(StandardCharsets.UTF_8);
        byte[] head = ("$" + text.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        this.evalHead = concat(Resp.encoded("EVAL"), concat(head, concat(text, new byte[] {'\r', '\n'})));
        this.fcallHead = concat(Resp.encoded("FCALL"), Resp.encoded(libraryName));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /**
     * Loads the script and the library from the class path.
     *
     * @return the script
     * @throws UncheckedIOException if a part is missing (a broken jar)
     */
    public static Script load() {
        return load(Script::resource);
    }

    /**
     * Assembles the script and the library from the given files (tests change one to see what
     * changes).
     *
     * @param files a file's text by its name without {@code .lua}
     * @return the script
     */
    static Script load(Function<String, String> files) {
        return new Script(script(files), libraryText(files));
    }

    private static String script(Function<String, String> resource) {
        StringBuilder sb = new StringBuilder(40_000);
        sb.append(resource.apply("replication")).append('\n');
        sb.append(resource.apply("prelude")).append('\n');
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
            appendAlgorithm(sb, e.getKey(), resource);
        }
        sb.append("end\nreturn A[kind]\nend\n\n");
        sb.append(resource.apply("main")).append('\n');
        return sb.toString();
    }

    /** @return the library's text, named {@link #NAME} */
    private static String libraryText(Function<String, String> resource) {
        StringBuilder sb = new StringBuilder(40_000);
        sb.append("#!lua name=").append(NAME).append('\n');
        sb.append("-- Sluice's function library: the script's files, every algorithm defined once, by the")
                .append(" first call\n-- (a library's load may read no global: not even math or string).\n");
        sb.append("local A\n");
        sb.append("-- Every kind is in A already.\nlocal function define(kind)\nreturn nil\nend\n\n");
        sb.append("local function setup()\n");
        sb.append(resource.apply("prelude")).append('\n');
        for (String file : ALGORITHMS.keySet()) {
            sb.append("do\n");
            appendAlgorithm(sb, file, resource);
            sb.append("end\n");
        }
        sb.append("return A\nend\n\n");
        sb.append("redis.register_function{function_name = '").append(NAME)
                .append("', callback = function(KEYS, ARGV)\n");
        sb.append("if not A then\nA = setup()\nend\n");
        sb.append(resource.apply("main")).append('\n');
        sb.append("end}\n");
        return sb.toString();
    }

    private static void appendAlgorithm(StringBuilder sb, String file, Function<String, String> resource) {
        for (String include : INCLUDES.getOrDefault(file, List.of())) {
            sb.append(resource.apply(include)).append('\n');
        }
        sb.append(resource.apply(file)).append('\n');
    }

    private static Map<String, List<String>> algorithms() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        // The token bucket first: the most common kind takes the fewest comparisons.
        for (String kind : List.of("token-bucket", "gcra", "fixed-window", "sliding-window", "leaky-bucket",
                "smooth-bursty", "sliding-log", "concurrency")) {
            m.put(kind, kind.equals("fixed-window") ? List.of(kind, "fixed-window-calendar") : List.of(kind));
        }
        m.put("shaping", List.of("shaping", "shaping-earned"));
        return Collections.unmodifiableMap(m);
    }

    static String resource(String part) {
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

    /**
     * @return the function library's text, for {@code FUNCTION LOAD}: {@code #!lua
     *     name=}{@link #libraryName()}, registering one function of the same name
     */
    public String library() {
        return library;
    }

    /**
     * @return the name of the library and of its one function: {@code sluice_} and the first 12
     *     hex digits of the SHA-1 of the library's text (with the name left out), so a different
     *     text has a different name
     */
    public String libraryName() {
        return libraryName;
    }

    /** @return the command and first argument of a call by function, as the protocol writes them */
    byte[] fcallHead() {
        return fcallHead;
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
