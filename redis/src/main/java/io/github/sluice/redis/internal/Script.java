package io.github.sluice.redis.internal;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The one Lua script that decides, releases and renews for every algorithm: the prelude, one file
 * per algorithm, and the dispatcher, concatenated from the class path.
 *
 * <p>It is called by {@code EVALSHA}; when Redis answers {@code NOSCRIPT} (after a restart or a
 * failover the script cache is empty) the same call is repeated once with {@code EVAL}, which also
 * caches the script again. Immutable and thread-safe.
 */
public final class Script {

    /** The resource files, in the order they are concatenated. */
    static final List<String> PARTS = List.of("prelude", "token-bucket", "gcra", "fixed-window",
            "sliding-window", "leaky-bucket", "shaping", "sliding-log", "concurrency", "main");

    private static final String DIR = "/io/github/sluice/redis/lua/";

    private final String source;
    private final String sha;

    private Script(String source) {
        this.source = source;
        this.sha = sha1(source);
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

    /**
     * Runs the script: {@code EVALSHA}, then {@code EVAL} on {@code NOSCRIPT}. Never blocks.
     *
     * @param commands the connection's asynchronous commands
     * @param keys the keys
     * @param argv the arguments
     * @return the reply: a list of {@code Long}
     */
    public CompletableFuture<List<Object>> run(RedisScriptingAsyncCommands<String, String> commands,
            String[] keys, String[] argv) {
        CompletableFuture<List<Object>> first =
                commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, argv).toCompletableFuture();
        return first.exceptionallyCompose(e -> {
            if (isNoScript(e)) {
                return commands.<List<Object>>eval(source, ScriptOutputType.MULTI, keys, argv)
                        .toCompletableFuture();
            }
            return CompletableFuture.failedFuture(e);
        });
    }

    private static boolean isNoScript(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof RedisNoScriptException
                || (t.getMessage() != null && t.getMessage().startsWith("NOSCRIPT"));
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
