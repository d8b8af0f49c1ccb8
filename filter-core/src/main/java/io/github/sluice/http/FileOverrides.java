package io.github.sluice.http;

import io.github.sluice.core.Clock;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The contract limits of {@code override=file:PATH}: lines {@code key = limit} ({@code #} starts a
 * comment), read at start-up, and read again when the file's size or modification time changed,
 * checked at most once a second by the lookup threads. A file that cannot be read or has a bad
 * line at start-up fails the start (naming the file and the line); later, the table read last
 * stays, and the error is logged.
 *
 * <p>Thread-safe.
 */
final class FileOverrides implements Function<String, String> {

    private static final Logger LOG = System.getLogger("io.github.sluice");
    private static final long CHECK_NANOS = 1_000_000_000L;

    private final Path path;
    private final Clock clock;
    private volatile Map<String, String> table;
    private volatile String version;
    private volatile long checkedAt;

    private FileOverrides(Path path, Clock clock) {
        this.path = path;
        this.clock = clock;
    }

    /**
     * @param path the file
     * @param clock when to look at it again
     * @return its lookup
     * @throws IllegalArgumentException if the file cannot be read or has a bad line
     */
    static FileOverrides of(Path path, Clock clock) {
        FileOverrides f = new FileOverrides(Objects.requireNonNull(path, "path"), clock);
        try {
            f.version = version(path);
            f.table = read(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("override=file:" + path + " cannot be read: " + e, e);
        }
        f.checkedAt = clock.nanos();
        return f;
    }

    /** @return the limits by key, as read last */
    Map<String, String> table() {
        return table;
    }

    @Override
    public String apply(String key) {
        long now = clock.nanos();
        if (now - checkedAt >= CHECK_NANOS) {
            checkedAt = now;
            try {
                String v = version(path);
                if (!v.equals(version)) {
                    Map<String, String> next = read(path);
                    table = next;
                    version = v;
                }
            } catch (IOException | IllegalArgumentException e) {
                LOG.log(Level.WARNING, "override=file:{0}: the file could not be read again ({1}); the limits read"
                        + " before stay", path, e.getMessage());
            }
        }
        return table.get(key);
    }

    private static String version(Path path) throws IOException {
        BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
        return a.size() + "@" + a.lastModifiedTime().toMillis();
    }

    static Map<String, String> read(Path path) throws IOException {
        String[] lines = Files.readString(path, StandardCharsets.UTF_8).split("\r\n|\r|\n", -1);
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            String key = eq < 0 ? "" : line.substring(0, eq).strip();
            String limit = eq < 0 ? "" : line.substring(eq + 1).strip();
            if (key.isEmpty() || limit.isEmpty() || limit.indexOf(' ') >= 0) {
                throw new IllegalArgumentException("override=file:" + path + " line " + (i + 1)
                        + ": a line must be 'key = limit' (e.g. partner-1 = 50/1m) but was '" + line + "'");
            }
            if (out.put(key, limit) != null) {
                throw new IllegalArgumentException("override=file:" + path + " line " + (i + 1)
                        + ": key '" + key + "' is given twice");
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "file:" + path;
    }
}
