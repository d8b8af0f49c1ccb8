package io.github.sluice.config;

import io.github.sluice.core.Clock;
import io.github.sluice.http.Enforcer;
import io.github.sluice.internal.FileVersion;
import io.github.sluice.internal.Suggest;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Policy;
import io.github.sluice.store.Inheritance;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Applies edits of the {@code config} properties file to a running {@link Enforcer}: the
 * adapters' file watch. The servlet filter, the JAX-RS feature and the Spring Boot starter start
 * one when their policies come from a file ({@code config=/etc/app/sluice.properties}) and stop
 * it when they are destroyed or closed.
 *
 * <h2>What it does</h2>
 * Every {@code config-watch-interval} (default 1 s), a daemon thread named
 * {@code sluice-config-watch} reads the file (opening its path anew, so a symbolic link, such as a
 * Kubernetes ConfigMap's {@code ..data}, is followed to its current target) and compares it with
 * the last version decided: its size and SHA-256, so an edit within the file system's time-stamp
 * granularity, or one that keeps the size, is seen.
 *
 * <h2>Only a complete, stable version is applied</h2>
 * A file rewritten in place can be read in the middle of the write. So a changed version is held,
 * not applied, until a check at least one interval later reads it unchanged (same size and hash);
 * a version that changed again meanwhile starts over. A stable version is then refused, logged at
 * WARNING and not read again until the file changes, if
 * <ul>
 *   <li>it is empty;
 *   <li>its last line has no line end (a write cut in the middle of a line, e.g. of a
 *       {@code match=} value);
 *   <li>it has an error: the usual message naming the file, the line, the parameter and the
 *       value;
 *   <li>it changes a setting other than policies (headers, trusted proxies, store settings, the
 *       watch itself): those cannot change at run time, so the whole version is refused and the
 *       message names the setting; restart to apply it;
 *   <li>the file defines no policy while the version in force did, unless it says
 *       {@code no-policies = true}: the operator's explicit word that no policy is wanted.
 * </ul>
 * Otherwise it is loaded as at start-up (the file, then the init-params or properties that override
 * it) and its policies are applied with
 * {@link Enforcer#reconfigure(java.util.Collection, Inheritance)}, each key of a changed policy
 * keeping its state by {@code config-reload} (default {@code keep-consumed}), and logged at INFO
 * with the policies added, changed and removed. Logged through {@code System.Logger}
 * {@code io.github.sluice.config}; a file that cannot be read (e.g. deleted) is logged at
 * WARNING, once until it is read again, and the policies in force stay.
 *
 * <p>A writer that stalls for longer than an interval exactly at the end of a line can still
 * have its prefix applied: nothing tells it from an edit that removed the lines after it. Replace
 * the file by an atomic rename to rule that out ({@code docs/operations.md}, "How to edit
 * safely").
 *
 * <p>Only a file path is watched; a {@code classpath:} resource is part of the application and is
 * not.
 *
 * <h2>Stopping</h2>
 * {@link #close()} stops the thread; the servlet filter calls it when it is destroyed. The watch
 * holds its enforcer weakly, so a watch nobody closes (a JAX-RS application, which has no portable
 * undeploy event, undeployed) stops at its first check after the enforcer was garbage-collected.
 *
 * <p>Thread-safe. {@link #check()} may be called from any thread (tests call it instead of
 * waiting, with a fake clock); checks are serialised. Time is read only from the watch's
 * {@link Clock}.
 */
public final class ConfigWatch implements AutoCloseable {

    /** The default {@code config-watch-interval}. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    private static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    private static final Duration MAX_INTERVAL = Duration.ofHours(1);
    private static final Pattern INTERVAL = Pattern.compile("(\\d{1,9})(ms|s|m|h)");
    private static final Logger LOG = System.getLogger("io.github.sluice.config");

    /**
     * The enforcer configured, held weakly: its owner (a filter, a feature's stages) holds it, and
     * an application that is undeployed without closing the watch lets it go; the next check then
     * stops the watch, rather than keep the application's classes alive.
     */
    private final java.lang.ref.WeakReference<Enforcer> enforcer;
    /** Where outcomes are logged; tests of this package replace it. */
    volatile Logger log = LOG;
    private final Path file;
    private final String source;
    private final Function<String, String> params;
    private final List<String> names;
    private final Duration interval;
    private final Inheritance inheritance;
    private final Map<String, String> fixed;
    private final ScheduledExecutorService timer;
    private final Clock clock;
    private final Reader reader;
    /** The last version decided, applied or refused; {@code null} after the file was gone. Guarded by {@code this}. */
    private FileVersion last;
    /** The names of the policies the version in force defines in the file itself. Guarded by {@code this}. */
    private List<String> filePolicies;
    /** A changed version read once and not yet seen stable, or {@code null}. Guarded by {@code this}. */
    private FileVersion pending;
    /** The read failure logged last, until the file is read again; guarded by {@code this}. */
    private String failure;
    /** When {@link #pending} was first read, in {@link #clock} nanoseconds. Guarded by {@code this}. */
    private long pendingSince;

    private ConfigWatch(Enforcer enforcer, Path file, String source, Function<String, String> params,
            List<String> names, Duration interval, Inheritance inheritance, FileVersion text,
            SluiceConfig.Reloaded baseline, boolean thread, Clock clock, Reader reader, Logger log) {
        this.enforcer = new java.lang.ref.WeakReference<>(enforcer);
        this.log = log;
        this.clock = clock;
        this.reader = reader;
        this.filePolicies = baseline.filePolicies();
        this.file = file;
        this.source = source;
        this.params = params;
        this.names = names;
        this.interval = interval;
        this.inheritance = inheritance;
        this.last = text;
        this.fixed = baseline.fixed();
        if (thread) {
            this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sluice-config-watch");
                t.setDaemon(true);
                return t;
            });
            long ms = interval.toMillis();
            timer.scheduleWithFixedDelay(this::checkQuietly, ms, ms, TimeUnit.MILLISECONDS);
        } else {
            this.timer = null;
        }
    }

    /**
     * Starts watching the {@code config} file of an enforcer built from {@code params} (as
     * {@link SluiceConfig#newEnforcer} builds it), if there is one to watch: {@code config} names a
     * file (not a {@code classpath:} resource) and {@code config-watch} is not {@code false}. The
     * version read now becomes the baseline: its settings are those that cannot change, and its
     * policies are applied at once (a policy unchanged since the enforcer was built keeps its
     * state), so an edit made between the start-up and this call is not missed.
     *
     * @param enforcer the enforcer the file configures
     * @param params the parameters the enforcer was built from
     * @param names every parameter name present
     * @return the running watch, to {@linkplain #close() close} with the enforcer; {@code null} if
     *     there is nothing to watch
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a watch setting is invalid, or the file no longer loads
     */
    public static ConfigWatch start(Enforcer enforcer, Function<String, String> params, Iterable<String> names) {
        return create(enforcer, params, names, true, Clock.system(), Reader.FILES, LOG);
    }

    /**
     * Like {@link #start} but without a thread: the file is read only by {@link #check()}. For
     * tests and for applications that schedule the checks themselves.
     *
     * @param enforcer the enforcer the file configures
     * @param params the parameters the enforcer was built from
     * @param names every parameter name present
     * @return the watch; {@code null} if there is nothing to watch
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a watch setting is invalid, or the file no longer loads
     */
    public static ConfigWatch manual(Enforcer enforcer, Function<String, String> params, Iterable<String> names) {
        return manual(enforcer, params, names, Clock.system());
    }

    /**
     * Like {@link #manual(Enforcer, Function, Iterable)}, with the clock that judges whether a
     * changed version stayed unchanged for a {@code config-watch-interval} (the clock of an
     * application that schedules the checks itself, or a test's fake clock).
     *
     * @param enforcer the enforcer the file configures
     * @param params the parameters the enforcer was built from
     * @param names every parameter name present
     * @param clock the clock read at every {@link #check()}
     * @return the watch; {@code null} if there is nothing to watch
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a watch setting is invalid, or the file no longer loads
     */
    public static ConfigWatch manual(Enforcer enforcer, Function<String, String> params, Iterable<String> names,
            Clock clock) {
        return create(enforcer, params, names, false, clock, Reader.FILES, LOG);
    }

    /** How the watch reads the file: the file system, or a test's sequence of file states. */
    @FunctionalInterface
    interface Reader {
        /** Reads the whole file, following symbolic links anew at every call. */
        Reader FILES = Files::readAllBytes;

        byte[] read(Path file) throws IOException;
    }

    static ConfigWatch create(Enforcer enforcer, Function<String, String> params, Iterable<String> names,
            boolean thread, Clock clock, Reader reader, Logger log) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(reader, "reader");
        Objects.requireNonNull(enforcer, "enforcer");
        Objects.requireNonNull(params, "params");
        List<String> all = new ArrayList<>();
        Objects.requireNonNull(names, "names").forEach(all::add);
        String location = params.apply("config");
        if (location == null || location.isBlank() || location.strip().startsWith("classpath:")) {
            return null;
        }
        location = location.strip();
        Path file = Path.of(location.startsWith("file:") ? location.substring("file:".length()) : location);
        byte[] text = read(reader, file, location);
        SluiceConfig.Reloaded r = SluiceConfig.reload(new String(text, StandardCharsets.UTF_8), location, params, all);
        String watch = r.fixed().get("config-watch");
        if ("false".equals(watch)) {
            return null;
        }
        // Both were checked by the load, with the line of the setting.
        Duration interval = interval(r.fixed().get("config-watch-interval"));
        Inheritance inheritance = inheritance(r.fixed().get("config-reload"));
        enforcer.reconfigure(r.policies(), inheritance);
        FileVersion baseline = new FileVersion(text);
        if (baseline.size() > 0 && !baseline.endsWithLineEnd()) {
            // Said now, rather than at the first edit, which would be refused for it.
            log.log(Level.WARNING, "Sluice: config file " + location + " does not end with a line end; a version"
                    + " without one is refused as possibly cut by a write, so end the file with a newline");
        }
        return new ConfigWatch(enforcer, file, location, params, List.copyOf(all), interval, inheritance,
                baseline, r, thread, clock, reader, log);
    }

    private static byte[] read(Reader reader, Path file, String location) {
        try {
            return reader.read(file);
        } catch (IOException e) {
            throw new ConfigException("init-param 'config'", 0, null, "config", location,
                    "cannot read the properties file: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the file once now. A version that differs from the last one decided is applied only
     * once it is stable: read unchanged (same size and SHA-256) by a check at least
     * {@code config-watch-interval} after the one that first read it; it is then refused, logged
     * at WARNING, if it is empty, if its last line has no line end, if it has an error, if it
     * changes a setting fixed at start-up, or if the file no longer defines any policy while the
     * version in force did and it does not say {@code no-policies = true}.
     *
     * @return {@code true} if a new version was applied; {@code false} if the file is unchanged,
     *     not yet stable, or the new version was refused (logged at WARNING) and the policies in
     *     force stay
     */
    public synchronized boolean check() {
        Enforcer enforcer = this.enforcer.get();
        if (enforcer == null) {
            close();
            return false;
        }
        long now = clock.nanos();
        FileVersion read;
        try {
            read = new FileVersion(reader.read(file));
        } catch (NoSuchFileException e) {
            failed("Sluice: config file " + source + " is gone; the policies in force stay");
            last = null;
            pending = null;
            return false;
        } catch (IOException e) {
            failed("Sluice: cannot read config file " + source + " (" + e + "); the policies in force stay");
            pending = null;
            return false;
        }
        failure = null;
        if (read.equals(last)) {
            // Back to the version decided (a write undone, or one read half-way): nothing to do.
            pending = null;
            return false;
        }
        if (!read.equals(pending)) {
            // First read of this version, or it changed since the last check: a write may be
            // under way, so wait for it to stay the same for an interval.
            log.log(Level.DEBUG, () -> "Sluice: config file " + source + " changed (" + read
                    + "); applied once unchanged for " + interval.toMillis() + " ms");
            pending = read;
            pendingSince = now;
            return false;
        }
        if (now - pendingSince < interval.toNanos()) {
            return false;
        }
        pending = null;
        last = read;
        boolean applied = decide(enforcer, read);
        // Counted for the alert "config reload refused" (sluice_config_reloads_total{result="refused"}).
        enforcer.metrics().recordConfigReload(applied);
        return applied;
    }

    /** Logs a failure to read at WARNING, once until the file is read again or fails otherwise. */
    private void failed(String message) {
        if (!message.equals(failure)) {
            log.log(Level.WARNING, message);
            failure = message;
        }
    }

    /** Applies a stable version, or refuses it with a WARNING; either way it is not read again. */
    private boolean decide(Enforcer enforcer, FileVersion version) {
        String refused = "Sluice: config file " + source + " (" + version + ") refused, the policies in force stay: ";
        if (version.size() == 0) {
            log.log(Level.WARNING, refused + "the file is empty (truncated by a write in place?); to run without"
                    + " policies from the file, write no-policies = true in it");
            return false;
        }
        if (!version.endsWithLineEnd()) {
            log.log(Level.WARNING, refused + "its last line has no line end, so the file may be cut in the middle"
                    + " of a write; end the file with a newline (and replace it by an atomic rename)");
            return false;
        }
        try {
            SluiceConfig.Reloaded r = SluiceConfig.reload(version.text(), source, params, names);
            String changed = changedSetting(r.fixed());
            if (changed != null) {
                log.log(Level.WARNING, refused + changed + " cannot change while running (restart to apply it)");
                return false;
            }
            if (r.filePolicies().isEmpty() && !filePolicies.isEmpty() && !r.noPolicies()) {
                log.log(Level.WARNING, refused + "the file defines no policy, while the version in force defines "
                        + filePolicies + " (cut by a write in place?); if no policy is wanted from the file,"
                        + " write no-policies = true in it");
                return false;
            }
            List<Policy> before = enforcer.policies();
            enforcer.reconfigure(r.policies(), inheritance);
            filePolicies = r.filePolicies();
            log.log(Level.INFO, "Sluice: config file " + source + " (" + version + ") applied: "
                    + summary(before, enforcer.policies()));
            return true;
        } catch (IllegalArgumentException e) {
            log.log(Level.WARNING, refused + e.getMessage());
            return false;
        }
    }

    private void checkQuietly() {
        try {
            check();
        } catch (RuntimeException e) {
            // The watch must outlive a surprise: the next tick tries again.
            log.log(Level.ERROR, "Sluice: config file " + source + " could not be checked", e);
        }
    }

    private String changedSetting(Map<String, String> now) {
        for (String name : new java.util.TreeSet<>(union(now))) {
            String was = fixed.get(name);
            String is = now.get(name);
            if (!Objects.equals(was, is)) {
                return "setting '" + name + "' (from " + (was == null ? "unset" : "'" + was + "'") + " to "
                        + (is == null ? "unset" : "'" + is + "'") + ")";
            }
        }
        return null;
    }

    private List<String> union(Map<String, String> now) {
        List<String> all = new ArrayList<>(fixed.keySet());
        all.addAll(now.keySet());
        return all;
    }

    private static String summary(List<Policy> before, List<Policy> after) {
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        for (Policy p : after) {
            Policy old = before.stream().filter(b -> b.name().equals(p.name())).findFirst().orElse(null);
            if (old == null) {
                added.add(p.name());
            } else if (!old.equals(p)) {
                changed.add(p.name());
            }
        }
        for (Policy p : before) {
            if (after.stream().noneMatch(a -> a.name().equals(p.name()))) {
                removed.add(p.name());
            }
        }
        return after.size() + " policies (added " + added + ", changed " + changed + ", removed " + removed + ")";
    }

    /** @return the file watched */
    public Path file() {
        return file;
    }

    /** @return how often the file is read */
    public Duration interval() {
        return interval;
    }

    /** @return what each key of a changed policy keeps */
    public Inheritance inheritance() {
        return inheritance;
    }

    /** Stops the watch thread, if any; the policies in force stay. Idempotent. */
    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "ConfigWatch{" + file + ", every " + interval.toMillis() + " ms, " + inheritance + '}';
    }

    /**
     * Parses {@code config-watch-interval}: {@code 100ms} to {@code 1h}.
     *
     * @throws IllegalArgumentException with the rule, for the caller to name the setting and line
     */
    static Duration interval(String value) {
        if (value == null) {
            return DEFAULT_INTERVAL;
        }
        Matcher m = INTERVAL.matcher(value);
        Duration d = null;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
        if (d == null || d.compareTo(MIN_INTERVAL) < 0 || d.compareTo(MAX_INTERVAL) > 0) {
            throw new IllegalArgumentException("must be a duration between 100ms and 1h, e.g. 1s or 500ms");
        }
        return d;
    }

    /**
     * Parses {@code config-reload}.
     *
     * @throws IllegalArgumentException with the rule, for the caller to name the setting and line
     */
    static Inheritance inheritance(String value) {
        if (value == null) {
            return Inheritance.KEEP_CONSUMED;
        }
        List<String> known = new ArrayList<>();
        for (Inheritance i : Inheritance.values()) {
            String name = i.name().toLowerCase(Locale.ROOT).replace('_', '-');
            known.add(name);
            if (name.equals(value)) {
                return i;
            }
        }
        throw new IllegalArgumentException("must be one of " + known + Suggest.didYouMean(value, known));
    }
}
