package io.github.sluice.config;

import io.github.sluice.http.Enforcer;
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
import java.util.Arrays;
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
 * adapters' file watch. The servlet filter and the JAX-RS feature start one when their policies
 * come from a file ({@code config=/etc/app/sluice.properties}) and stop it when they are
 * destroyed or closed.
 *
 * <h2>What it does</h2>
 * Every {@code config-watch-interval} (default 1 s), a daemon thread named
 * {@code sluice-config-watch} reads the file and compares its bytes with the last version read
 * (a content comparison: an edit within the file system's time-stamp granularity, or one that
 * keeps the size, is seen). A changed file is loaded as at start-up (the file, then the
 * init-params or properties that override it) and its policies are applied with
 * {@link Enforcer#reconfigure(java.util.Collection, Inheritance)}, each key of a changed policy
 * keeping its state by {@code config-reload} (default {@code keep-consumed}). Logged through
 * {@code System.Logger} {@code io.github.sluice.config}:
 * <ul>
 *   <li>INFO: a version applied, with the policies added, changed and removed;
 *   <li>WARNING: a version refused, with the usual message naming the file, the line, the
 *       parameter and the value. The policies in force stay; the version is not retried, and
 *       the next edit is read again;
 *   <li>WARNING: a version that changes a setting other than policies (headers, trusted proxies,
 *       store settings, the watch itself): those cannot change at run time, so the whole version
 *       is refused (nothing of it applied) and the message names the setting; restart to apply
 *       it;
 *   <li>WARNING: the file cannot be read (e.g. deleted): the policies in force stay.
 * </ul>
 * Only a file path is watched; a {@code classpath:} resource is part of the application and is
 * not.
 *
 * <h2>Stopping</h2>
 * {@link #close()} stops the thread; the servlet filter calls it when it is destroyed. The watch
 * holds its enforcer weakly, so a watch nobody closes (a JAX-RS application, which has no portable
 * undeploy event, undeployed) stops at its first check after the enforcer was garbage-collected.
 *
 * <p>Thread-safe. {@link #check()} may be called from any thread (tests call it instead of
 * waiting); checks are serialised.
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
    /** The bytes of the last version read, applied or refused; guarded by {@code this}. */
    private byte[] last;

    private ConfigWatch(Enforcer enforcer, Path file, String source, Function<String, String> params,
            List<String> names, Duration interval, Inheritance inheritance, byte[] text,
            Map<String, String> fixed, boolean thread) {
        this.enforcer = new java.lang.ref.WeakReference<>(enforcer);
        this.file = file;
        this.source = source;
        this.params = params;
        this.names = names;
        this.interval = interval;
        this.inheritance = inheritance;
        this.last = text;
        this.fixed = fixed;
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
        return create(enforcer, params, names, true);
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
        return create(enforcer, params, names, false);
    }

    private static ConfigWatch create(Enforcer enforcer, Function<String, String> params, Iterable<String> names,
            boolean thread) {
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
        byte[] text = read(file, location);
        SluiceConfig.Reloaded r = SluiceConfig.reload(new String(text, StandardCharsets.UTF_8), location, params, all);
        String watch = r.fixed().get("config-watch");
        if ("false".equals(watch)) {
            return null;
        }
        // Both were checked by the load, with the line of the setting.
        Duration interval = interval(r.fixed().get("config-watch-interval"));
        Inheritance inheritance = inheritance(r.fixed().get("config-reload"));
        enforcer.reconfigure(r.policies(), inheritance);
        return new ConfigWatch(enforcer, file, location, params, List.copyOf(all), interval, inheritance, text,
                r.fixed(), thread);
    }

    private static byte[] read(Path file, String location) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException("init-param 'config'", 0, null, "config", location,
                    "cannot read the properties file: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the file once now and applies it if it changed since the last version read.
     *
     * @return {@code true} if a new version was applied; {@code false} if the file is unchanged,
     *     or the new version was refused (logged at WARNING) and the policies in force stay
     */
    public synchronized boolean check() {
        Enforcer enforcer = this.enforcer.get();
        if (enforcer == null) {
            close();
            return false;
        }
        byte[] text;
        try {
            text = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            log.log(Level.WARNING, "Sluice: config file " + source + " is gone; the policies in force stay");
            last = null;
            return false;
        } catch (IOException e) {
            log.log(Level.WARNING, "Sluice: cannot read config file " + source + " (" + e
                    + "); the policies in force stay");
            return false;
        }
        if (Arrays.equals(text, last)) {
            return false;
        }
        last = text;
        try {
            SluiceConfig.Reloaded r = SluiceConfig.reload(new String(text, StandardCharsets.UTF_8), source, params,
                    names);
            String changed = changedSetting(r.fixed());
            if (changed != null) {
                log.log(Level.WARNING, "Sluice: config file " + source + " refused: " + changed
                        + " cannot change while running (restart to apply it); the policies in force stay");
                return false;
            }
            List<Policy> before = enforcer.policies();
            enforcer.reconfigure(r.policies(), inheritance);
            log.log(Level.INFO, "Sluice: config file " + source + " applied: " + summary(before, enforcer.policies()));
            return true;
        } catch (IllegalArgumentException e) {
            log.log(Level.WARNING, "Sluice: config file " + source + " refused, the policies in force stay: "
                    + e.getMessage());
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
