package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.internal.FileVersion;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The contract limits of {@code override=file:PATH}: lines {@code key = limit} ({@code #} starts a
 * comment), read at start-up. A file that cannot be read, or has a bad line or a bad limit, fails
 * the start, naming the file, the line or the key.
 *
 * <h2>Edits, with the rules of the {@code config} file's watch</h2>
 * The lookup threads look at the file again at most once a second, opening its path anew (so a
 * symbolic link, such as a Kubernetes ConfigMap's {@code ..data}, is followed), and compare its
 * size and SHA-256 with the last version decided: an edit that keeps the size, or falls within the
 * file system's time-stamp granularity, is seen. A file rewritten in place can be read in the
 * middle of the write, and a cut version could drop the lines of keys that are {@code blocked}, or
 * cut {@code 5000/1m} to {@code 50}. So a changed version is held, not applied, until a look at
 * least a second later reads it unchanged; a version that changed again meanwhile starts over. A
 * stable version is then refused as a whole, the limits in force staying, if
 * <ul>
 *   <li>it is empty (a file of comment lines only says "no contracts");
 *   <li>its last line has no line end (a write cut in the middle of a line);
 *   <li>a line is not {@code key = limit}, a key is given twice, or a limit is not one the
 *       policy accepts (the message names the line or the key).
 * </ul>
 * Each refusal, and a file that cannot be read (deleted, say), is logged at WARNING once, until
 * the file changes or is read again; an applied version is logged at INFO with the keys added,
 * changed and removed. The lookup cache ({@code override-ttl}) still answers each key from what it
 * cached until its entry expires. A writer that stalls for over a second exactly at the end of a
 * line can still have its prefix applied, as with the config file: replace the file by an atomic
 * rename to rule that out (docs/operations.md, "How to edit safely").
 *
 * <p>Thread-safe: looks at the file are serialised; the table is read without a lock.
 */
final class FileOverrides implements Function<String, String> {

    private static final Logger LOG = System.getLogger("io.github.sluice");
    static final long CHECK_NANOS = 1_000_000_000L;

    private final Path path;
    private final Clock clock;
    /** Where outcomes are logged; tests replace it. */
    volatile Logger log = LOG;
    private volatile Map<String, String> table;
    /** Checks one limit as the policy reads it; throws IllegalArgumentException for a bad one. */
    private volatile Consumer<String> limitCheck = limit -> { };
    private volatile long checkedAt;
    /** The last version decided, applied or refused. Guarded by {@code this}. */
    private FileVersion last;
    /** A changed version read once and not yet seen stable, or {@code null}. Guarded by {@code this}. */
    private FileVersion pending;
    /** When {@link #pending} was first read, in {@link #clock} nanoseconds. Guarded by {@code this}. */
    private long pendingSince;
    /** The read failure logged last, until the file is read again. Guarded by {@code this}. */
    private String failure;

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
            f.last = new FileVersion(Files.readAllBytes(path));
        } catch (IOException e) {
            throw new IllegalArgumentException("override=file:" + path + " cannot be read: " + e, e);
        }
        f.table = parse(path, f.last.text());
        f.checkedAt = clock.nanos();
        return f;
    }

    /** @return the limits by key, as applied last */
    Map<String, String> table() {
        return table;
    }

    /**
     * Sets how a changed version's limits are checked before it is applied: as the policy reads a
     * contract limit, so that a version with a bad one is refused whole rather than some keys
     * falling back to their plan (a {@code blocked} key among them).
     *
     * @param check throws {@link IllegalArgumentException} for a limit the policy does not accept
     */
    void limitCheck(Consumer<String> check) {
        this.limitCheck = Objects.requireNonNull(check, "check");
    }

    @Override
    public String apply(String key) {
        long now = clock.nanos();
        if (now - checkedAt >= CHECK_NANOS) {
            check(now);
        }
        return table.get(key);
    }

    /**
     * Looks at the file once: holds a changed version, applies or refuses a version read unchanged
     * a second after it was first read. At most once a second: a call less than a second after
     * the last look does nothing. Called by {@link #apply}; tests call it directly.
     *
     * @param now a reading of the clock
     */
    synchronized void check(long now) {
        if (now - checkedAt < CHECK_NANOS) {
            return; // another lookup thread looked while this one waited for the lock
        }
        checkedAt = now;
        FileVersion read;
        try {
            read = new FileVersion(Files.readAllBytes(path));
        } catch (IOException e) {
            String what = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (!what.equals(failure)) {
                failure = what;
                log.log(Level.WARNING, "override=file:{0} cannot be read ({1}); the contract limits in force stay",
                        path, what);
            }
            return;
        }
        failure = null;
        if (read.equals(last)) {
            pending = null;
            return;
        }
        if (!read.equals(pending)) {
            pending = read;
            pendingSince = now;
            return;
        }
        if (now - pendingSince < CHECK_NANOS) {
            return;
        }
        pending = null;
        last = read;
        decide(read);
    }

    private void decide(FileVersion version) {
        if (version.size() == 0) {
            refuse(version, "the file is empty (a file of comment lines says there are no contracts)");
            return;
        }
        if (!version.endsWithLineEnd()) {
            refuse(version, "its last line has no line end (a write cut in the middle of a line?)");
            return;
        }
        Map<String, String> next;
        try {
            next = parse(path, version.text());
            Consumer<String> check = limitCheck;
            for (Map.Entry<String, String> e : next.entrySet()) {
                try {
                    check.accept(e.getValue());
                } catch (IllegalArgumentException bad) {
                    throw new IllegalArgumentException("key '" + e.getKey() + "' has a bad limit '" + e.getValue()
                            + "': " + bad.getMessage(), bad);
                }
            }
        } catch (IllegalArgumentException e) {
            refuse(version, e.getMessage());
            return;
        }
        Map<String, String> before = table;
        int added = 0;
        int changed = 0;
        for (Map.Entry<String, String> e : next.entrySet()) {
            String old = before.get(e.getKey());
            if (old == null) {
                added++;
            } else if (!old.equals(e.getValue())) {
                changed++;
            }
        }
        int removed = 0;
        for (String k : before.keySet()) {
            if (!next.containsKey(k)) {
                removed++;
            }
        }
        table = next;
        log.log(Level.INFO, "override=file:{0}: applied {1} ({2} keys: added {3}, changed {4}, removed {5})",
                path, version, next.size(), added, changed, removed);
    }

    private void refuse(FileVersion version, String why) {
        log.log(Level.WARNING, "override=file:{0}: refused {1}: {2}; the contract limits in force stay",
                path, version, why);
    }

    static Map<String, String> parse(Path path, String text) {
        String[] lines = text.split("\r\n|\r|\n", -1);
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
