package io.github.sluice.config;

import io.github.sluice.http.DenialBody;
import io.github.sluice.http.EnforcementListener;
import io.github.sluice.http.Enforcer;
import io.github.sluice.http.HeaderOptions;
import io.github.sluice.http.HeaderStyle;
import io.github.sluice.http.LoggingListener;
import io.github.sluice.http.ProblemBody;
import io.github.sluice.http.TopClients;
import io.github.sluice.internal.Suggest;
import io.github.sluice.key.ForwardedHeader;
import io.github.sluice.policy.ConfigException;
import io.github.sluice.policy.Line;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyParser;
import io.github.sluice.store.Store;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The loader of Servlet init-params, JAX-RS properties and properties files: reads the settings
 * and returns the {@link Enforcer.Builder} they describe, which the caller may still adjust (give
 * it a {@link Store}, a listener) before {@code build()}. Both adapters start through
 * {@link #newEnforcer(Function, Iterable, Object, String)}.
 *
 * <pre>{@code
 * Enforcer enforcer = SluiceConfig.fromProperties("classpath:sluice.properties")
 *         .store(redisStore)
 *         .build();
 * }</pre>
 *
 * <h2>Settings</h2>
 * The same names serve as init-params and as keys of a properties file (see
 * {@code docs/configuration.md}); each is the {@link Enforcer.Builder} setter of the same name in
 * camel case, except the header settings ({@code headers}, {@code headers-on},
 * {@code expose-headers}, {@code degraded-header}: one {@code HeaderOptions}) and the body settings
 * ({@code problem-type}, {@code denial-body}, {@code denial-content-type}: one {@code DenialBody}):
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>name</th><th>value</th><th>default</th></tr>
 *   <tr><td>{@code policies}</td><td>policy lines (init-param only)</td><td>none</td></tr>
 *   <tr><td>{@code policy.<name>}</td><td>one policy's specification</td><td></td></tr>
 *   <tr><td>{@code config}</td><td>a properties file: {@code classpath:x.properties} or a path
 *       (init-param only)</td><td>none</td></tr>
 *   <tr><td>{@code headers}</td><td>{@code draft}, {@code draft-06}, {@code x-ratelimit}, {@code none}</td>
 *       <td>{@code draft}</td></tr>
 *   <tr><td>{@code headers-on}</td><td>{@code always}, {@code denial}</td><td>{@code always}</td></tr>
 *   <tr><td>{@code expose-headers}</td><td>{@code true}, {@code false}</td><td>{@code false}</td></tr>
 *   <tr><td>{@code degraded-header}</td><td>a header name</td><td>none</td></tr>
 *   <tr><td>{@code trusted-proxies}</td><td>CIDRs, comma- or space-separated</td><td>none</td></tr>
 *   <tr><td>{@code forwarded-header}</td><td>{@code x-forwarded-for}, {@code forwarded}</td>
 *       <td>{@code x-forwarded-for}</td></tr>
 *   <tr><td>{@code ipv6-prefix}</td><td>1..128</td><td>64</td></tr>
 *   <tr><td>{@code dry-run}</td><td>{@code true} makes every policy dry-run</td><td>{@code false}</td></tr>
 *   <tr><td>{@code problem-type}</td><td>the problem's {@code type} URI, for every status</td><td>the draft's
 *       quota-exceeded type for 429, temporary-reduced-capacity for 503 (see {@link ProblemBody})</td></tr>
 *   <tr><td>{@code denial-body}</td><td>a fixed body replacing the problem document</td><td>none</td></tr>
 *   <tr><td>{@code denial-content-type}</td><td>the fixed body's content type</td>
 *       <td>{@code text/plain; charset=utf-8}</td></tr>
 *   <tr><td>{@code max-key-length}</td><td>40..4096; longer keys are hashed</td><td>128</td></tr>
 *   <tr><td>{@code max-keys}</td><td>keys per policy in memory, 1..1000000000, checked against the
 *       memory budget</td><td>each policy's share of the budget, at most 1000000</td></tr>
 *   <tr><td>{@code memory-budget}</td><td>bytes all in-memory keys may take at worst, with an
 *       optional {@code k}, {@code m} or {@code g} (binary multiples)</td><td>{@code 256m}</td></tr>
 *   <tr><td>{@code shards}</td><td>a power of two</td><td>4 per CPU, at least 16</td></tr>
 *   <tr><td>{@code listener}</td><td>{@code log}, {@code none}</td><td>{@code log}</td></tr>
 *   <tr><td>{@code exempt-methods}</td><td>methods no policy applies to unless its match names
 *       them, comma- or space-separated; empty for none</td><td>{@code OPTIONS}</td></tr>
 *   <tr><td>{@code config-watch}</td><td>{@code true}: apply edits of the {@code config} file while
 *       running (see {@link ConfigWatch})</td><td>{@code true} when {@code config} is a file</td></tr>
 *   <tr><td>{@code config-watch-interval}</td><td>how often the file is read, {@code 100ms}..{@code 1h}</td>
 *       <td>{@code 1s}</td></tr>
 *   <tr><td>{@code config-reload}</td><td>what keys of a changed policy keep: {@code keep-consumed},
 *       {@code keep-remaining}, {@code proportional}, {@code reset}</td><td>{@code keep-consumed}</td></tr>
 *   <tr><td>{@code no-policies}</td><td>{@code true}: the {@code config} file defines no policy on
 *       purpose (a file with a policy, or no file, is an error); the watch then applies a version
 *       without policies (see {@link ConfigWatch})</td><td>{@code false}</td></tr>
 *   <tr><td>{@code top-clients}</td><td>heavy hitters kept per policy, by refused requests
 *       ({@link io.github.sluice.http.TopClients}), 0..1000; 0 keeps none</td><td>20</td></tr>
 *   <tr><td>{@code top-clients-admitted}</td><td>{@code true}: also by admitted requests (costs
 *       on every admission)</td><td>{@code false}</td></tr>
 * </table>
 * Init-params override the file's settings, policies included: a policy the init-params define
 * under a name the file uses replaces the file's, in the file's place; the file's policies come
 * first, then the init-params' others. Every error is a {@link ConfigException} naming the source, line, parameter and
 * value, raised here, at load time.
 *
 * <p>Stateless and thread-safe.
 */
public final class SluiceConfig {

    /** Setting names other than {@code policy.<name>}. */
    public static final Set<String> SETTINGS = Set.of("policies", "config", "headers", "headers-on",
            "expose-headers", "degraded-header", "trusted-proxies", "forwarded-header", "ipv6-prefix", "dry-run",
            "problem-type", "denial-body", "denial-content-type", "max-key-length", "max-keys", "memory-budget",
            "shards", "listener", "exempt-methods", "config-watch", "config-watch-interval", "config-reload",
            "no-policies", "top-clients", "top-clients-admitted");

    /** The prefix of a single-policy setting, {@code policy.per-ip = ...}. */
    public static final String POLICY_PREFIX = "policy.";

    /** The largest {@code max-keys}, as {@link Enforcer.Builder#maxKeys} takes it. */
    private static final int MAX_KEYS = 1_000_000_000;

    private SluiceConfig() {
    }

    /**
     * Loads named parameters (Servlet init-params, JAX-RS properties), without checking for
     * misspelt names (see the overload).
     *
     * @param params returns a parameter's value, or {@code null} if it is not set
     * @return the builder the settings describe
     * @throws NullPointerException if {@code params} is null
     * @throws ConfigException if a value is invalid or the properties file cannot be read
     */
    public static Enforcer.Builder fromInitParams(Function<String, String> params) {
        return load(params, SETTINGS).build();
    }

    /**
     * Loads named parameters and rejects unknown names, so that a misspelt init-param fails at
     * startup. Names of the form {@code policy.<name>} define one policy each.
     *
     * @param params returns a parameter's value, or {@code null} if it is not set
     * @param names every parameter name present (e.g. {@code FilterConfig.getInitParameterNames()})
     * @return the builder the settings describe
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a name is unknown, a value is invalid or the file cannot be read
     */
    public static Enforcer.Builder fromInitParams(Function<String, String> params, Iterable<String> names) {
        return load(params, Objects.requireNonNull(names, "names")).build();
    }

    /**
     * Loads a properties file.
     *
     * @param location {@code classpath:path/in/jar.properties}, or a file system path (optionally
     *     prefixed {@code file:})
     * @return the builder the settings describe
     * @throws NullPointerException if {@code location} is null
     * @throws ConfigException if the file cannot be read or holds an error
     */
    public static Enforcer.Builder fromProperties(String location) {
        Settings s = new Settings();
        s.readFile(Objects.requireNonNull(location, "location"));
        return s.build();
    }

    /**
     * Parses the text of a properties file.
     *
     * @param text the file's content
     * @param source its name, for messages
     * @return the builder the settings describe
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if the text holds an error
     */
    public static Enforcer.Builder parseProperties(String text, String source) {
        Settings s = new Settings();
        s.readText(Objects.requireNonNull(text, "text"), Objects.requireNonNull(source, "source"));
        return s.build();
    }

    /**
     * Loads settings a framework has collected by name, e.g. Spring Boot's {@code sluice.*}
     * properties: the names, values and checks of init-params, with every error naming the setting
     * as the user wrote it. A {@code config} entry is read first, as {@code load} does, and the
     * others override it.
     *
     * @param settings setting names ({@link #SETTINGS} or {@code policy.<name>}) to values; the
     *     policies are applied in the map's iteration order
     * @param source returns where a setting was written, for messages, e.g. for
     *     {@code policy.per-ip} the text {@code property 'sluice.policies.per-ip'}
     * @return the builder the settings describe
     * @throws NullPointerException if an argument is null
     * @throws ConfigException if a name is unknown, a value is invalid or the file cannot be read;
     *     the message starts with the setting's {@code source}
     */
    public static Enforcer.Builder fromSettings(Map<String, String> settings, Function<String, String> source) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(source, "source");
        Settings s = new Settings();
        String location = settings.get("config");
        if (location != null && !location.isBlank()) {
            s.readFile(location.strip());
        }
        settings.forEach((name, value) -> {
            if (!name.equals("config") && value != null) {
                s.put(name, value, source.apply(name), 0);
            }
        });
        return s.build();
    }

    /**
     * The start-up both adapters share: loads named parameters as
     * {@link #fromInitParams(Function, Iterable)} does, keeps the policies' state in the store
     * the container holds for them if there is one, and builds the enforcer.
     *
     * @param params returns a parameter's value, or {@code null} if it is not set
     * @param names every parameter name present
     * @param store what the container holds for the store (a servlet context attribute, a JAX-RS
     *     property), or {@code null} for a new in-memory store that the enforcer owns
     * @param storeSource where {@code store} was found, for messages, e.g.
     *     {@code property 'sluice.store'}
     * @return the enforcer; it does not close a given store
     * @throws NullPointerException if {@code params}, {@code names} or {@code storeSource} is null
     * @throws ConfigException if a setting is invalid, or configures the in-memory store while a
     *     store is given
     * @throws IllegalArgumentException if {@code store} is not a {@link Store}, or the enforcer
     *     cannot be built (see {@link Enforcer.Builder#build()})
     */
    public static Enforcer newEnforcer(Function<String, String> params, Iterable<String> names, Object store,
            String storeSource) {
        Objects.requireNonNull(storeSource, "storeSource");
        Settings s = load(params, Objects.requireNonNull(names, "names"));
        Enforcer.Builder b = s.build();
        if (store != null) {
            if (!(store instanceof Store given)) {
                throw new IllegalArgumentException(storeSource + " must hold a " + Store.class.getName()
                        + " but held a " + store.getClass().getName());
            }
            s.requireNoRegistrySettings(storeSource, given);
            b.store(given);
        }
        return b.build();
    }

    /**
     * What a reload of the {@code config} file reads: the file's text as given, then the other
     * parameters, which override it, as at start-up.
     *
     * @return the settings that cannot change at run time (name to value) and the policies
     * @throws ConfigException if a setting or a policy is invalid
     */
    static Reloaded reload(String text, String source, Function<String, String> params, Iterable<String> names) {
        Settings s = new Settings();
        s.readText(text, source);
        for (String name : names) {
            if (!name.equals("config")) {
                String v = params.apply(name);
                if (v != null) {
                    s.put(name, v, "init-param '" + name + "'", 0);
                }
            }
        }
        s.build();
        return new Reloaded(s.fixed(), s.policies(), s.filePolicies(), s.noPolicies());
    }

    /**
     * A reload: the settings fixed at start-up, the policies, the names of those the file itself
     * defines, and whether {@code no-policies = true} is set.
     */
    record Reloaded(Map<String, String> fixed, List<Policy> policies, List<String> filePolicies,
            boolean noPolicies) {
    }

    /** Reads the file named by {@code config}, then the other parameters, which override it. */
    private static Settings load(Function<String, String> params, Iterable<String> names) {
        Objects.requireNonNull(params, "params");
        Settings s = new Settings();
        String location = params.apply("config");
        if (location != null && !location.isBlank()) {
            s.readFile(location.strip());
        }
        for (String name : names) {
            if (name.equals("config")) {
                continue;
            }
            String v = params.apply(name);
            if (v != null) {
                s.put(name, v, "init-param '" + name + "'", 0);
            }
        }
        return s;
    }

    /** Raw settings with their origin, interpreted in {@link #build()}. Not thread-safe. */
    private static final class Settings {
        private record Raw(String value, String source, int line) {
        }

        private final Map<String, Raw> values = new LinkedHashMap<>();
        private final List<Raw> policyLines = new ArrayList<>();
        private final List<String[]> namedPolicies = new ArrayList<>();
        /** The source of the properties file read, or {@code null} if none was. */
        private String file;

        void readFile(String location) {
            String source = location;
            String text;
            try {
                text = read(location);
            } catch (IOException e) {
                throw new ConfigException("init-param 'config'", 0, null, "config", location,
                        "cannot read the properties file: " + e.getMessage(), e);
            }
            readText(text, source);
        }

        void readText(String text, String source) {
            file = source;
            for (PropertiesText.Entry e : PropertiesText.parse(text, source)) {
                if (e.key().equals("config") || e.key().equals("policies")) {
                    throw new ConfigException(source, e.line(), null, e.key(), e.value(), "'" + e.key()
                            + "' is an init-param only; in a properties file write one policy.<name> = ... per policy",
                            null);
                }
                put(e.key(), e.value(), source, e.line());
            }
        }

        void put(String name, String value, String source, int line) {
            if (name.startsWith(POLICY_PREFIX)) {
                namedPolicies.add(new String[] {name.substring(POLICY_PREFIX.length()), value, source,
                    Integer.toString(line)});
                return;
            }
            if (!SETTINGS.contains(name)) {
                String near = Suggest.nearest(name, SETTINGS);
                int dot = name.indexOf('.');
                if (near == null && dot > 0 && Suggest.nearest(name.substring(0, dot + 1), List.of(POLICY_PREFIX)) != null) {
                    near = POLICY_PREFIX + name.substring(dot + 1);
                }
                throw new ConfigException(source, line, null, name, value, "unknown setting"
                        + (near == null ? "; known settings: " : "; did you mean '" + near + "'? Known settings: ")
                        + new java.util.TreeSet<>(SETTINGS) + " and policy.<name>", null);
            }
            if (name.equals("policies")) {
                policyLines.add(new Raw(value, source, line));
                return;
            }
            values.put(name, new Raw(value.strip(), source, line));
        }

        /** The builder these settings describe; policies parsed here, so errors name their line. */
        Enforcer.Builder build() {
            Enforcer.Builder b = Enforcer.builder();
            Raw v;
            if ((v = values.get("trusted-proxies")) != null && !v.value.isEmpty()) {
                for (String cidr : v.value.split("[,\\s]+")) {
                    if (!cidr.isEmpty()) {
                        call(v, "trusted-proxies", cidr, () -> b.trustedProxies(cidr));
                    }
                }
            }
            if ((v = values.get("forwarded-header")) != null) {
                Raw raw = v;
                b.forwardedHeader(switch (v.value) {
                    case "x-forwarded-for" -> ForwardedHeader.X_FORWARDED_FOR;
                    case "forwarded" -> ForwardedHeader.FORWARDED;
                    default -> throw error(raw, "forwarded-header", "must be x-forwarded-for or forwarded"
                            + Suggest.didYouMean(raw.value, List.of("x-forwarded-for", "forwarded")));
                });
            }
            if ((v = values.get("ipv6-prefix")) != null) {
                int bits = intValue(v, "ipv6-prefix", 128);
                call(v, "ipv6-prefix", v.value, () -> b.ipv6Prefix(bits));
            }
            b.headers(headerOptions());
            b.dryRun((v = values.get("dry-run")) != null && booleanValue(v, "dry-run"));
            DenialBody denialBody = denialBody();
            if (denialBody != null) {
                b.denialBody(denialBody);
            }
            if ((v = values.get("max-key-length")) != null) {
                int n = intValue(v, "max-key-length", 4096);
                call(v, "max-key-length", v.value, () -> b.maxKeyLength(n));
            }
            if ((v = values.get("max-keys")) != null) {
                int n = intValue(v, "max-keys", MAX_KEYS);
                call(v, "max-keys", v.value, () -> b.maxKeys(n));
            }
            if ((v = values.get("memory-budget")) != null) {
                long bytes = byteSize(v, "memory-budget");
                call(v, "memory-budget", v.value, () -> b.memoryBudget(bytes));
            }
            if ((v = values.get("shards")) != null) {
                int n = intValue(v, "shards", 65536);
                call(v, "shards", v.value, () -> b.shards(n));
            }
            if ((v = values.get("top-clients")) != null) {
                int n = intValue(v, "top-clients", TopClients.MAX_SIZE);
                call(v, "top-clients", v.value, () -> b.topClients(n));
            }
            if ((v = values.get("top-clients-admitted")) != null) {
                b.topClientsAdmitted(booleanValue(v, "top-clients-admitted"));
            }
            if ((v = values.get("exempt-methods")) != null) {
                String[] methods = v.value.isBlank() ? new String[0] : v.value.strip().split("[,\\s]+");
                call(v, "exempt-methods", v.value, () -> b.exemptMethods(methods));
            }
            if ((v = values.get("config-watch")) != null) {
                booleanValue(v, "config-watch");
            }
            if ((v = values.get("config-watch-interval")) != null) {
                Raw raw = v;
                call(v, "config-watch-interval", v.value, () -> ConfigWatch.interval(raw.value));
            }
            if ((v = values.get("config-reload")) != null) {
                Raw raw = v;
                call(v, "config-reload", v.value, () -> ConfigWatch.inheritance(raw.value));
            }
            if ((v = values.get("listener")) != null) {
                b.listener(switch (v.value) {
                    case "log" -> new LoggingListener();
                    case "none" -> EnforcementListener.NONE;
                    default -> throw error(v, "listener", "must be log or none"
                            + Suggest.didYouMean(v.value, List.of("log", "none")));
                });
            }
            List<Policy> policies = policies();
            if ((v = values.get("no-policies")) != null && booleanValue(v, "no-policies")) {
                requireNoFilePolicies(v);
            }
            return b.policies(policies);
        }

        /**
         * {@code no-policies = true} says the file defines no policy: without a file, or with a
         * policy in it, the setting would be a mistake, so it is refused rather than ignored.
         */
        private void requireNoFilePolicies(Raw v) {
            if (file == null) {
                throw error(v, "no-policies", "says that the config file defines no policy, but no config file is"
                        + " read; remove no-policies, or set config");
            }
            for (String[] np : namedPolicies) {
                if (np[2].equals(file)) {
                    throw error(v, "no-policies", "says that " + file + " defines no policy, but line " + np[3]
                            + " defines policy '" + np[0] + "'; remove one of them");
                }
            }
        }

        /** @return the names of the policies the properties file itself defines, in order */
        List<String> filePolicies() {
            List<String> names = new ArrayList<>();
            for (String[] np : namedPolicies) {
                if (np[2].equals(file)) {
                    names.add(np[0]);
                }
            }
            return names;
        }

        /** @return whether {@code no-policies = true} is set (validated by {@link #build()}) */
        boolean noPolicies() {
            Raw v = values.get("no-policies");
            return v != null && v.value.equals("true");
        }

        /** The policies, parsed here, so errors name their line. */
        List<Policy> policies() {
            List<Policy> policies = new ArrayList<>();
            List<String> origins = new ArrayList<>();
            for (String[] np : namedPolicies) {
                Policy p = PolicyParser.parse(np[0], np[1], np[2], Integer.parseInt(np[3]));
                addUnique(policies, origins, p, np[2], Integer.parseInt(np[3]), file);
            }
            for (Raw r : policyLines) {
                for (Policy p : PolicyParser.parse(r.value, r.source)) {
                    addUnique(policies, origins, p, r.source, 0, file);
                }
            }
            return policies;
        }

        /**
         * The settings other than policies, name to value: those a reload cannot change.
         * {@code no-policies} describes one version of the file, so it is not among them.
         */
        Map<String, String> fixed() {
            Map<String, String> fixed = new java.util.TreeMap<>();
            values.forEach((name, raw) -> fixed.put(name, raw.value));
            fixed.remove("no-policies");
            return fixed;
        }

        private HeaderOptions headerOptions() {
            HeaderStyle style = HeaderStyle.DRAFT;
            Raw v;
            if ((v = values.get("headers")) != null) {
                Raw raw = v;
                List<String> styles = new ArrayList<>();
                for (HeaderStyle hs : HeaderStyle.values()) {
                    styles.add(hs.configName());
                }
                if (!styles.contains(raw.value)) {
                    throw new ConfigException(raw.source, raw.line, null, "headers", raw.value, "headers must be one of "
                            + String.join(", ", styles) + " but was '" + raw.value + "'"
                            + Suggest.didYouMean(raw.value, styles), null);
                }
                style = call(v, "headers", v.value, () -> HeaderStyle.ofConfigName(raw.value));
            }
            boolean onDenial = false;
            if ((v = values.get("headers-on")) != null) {
                onDenial = switch (v.value) {
                    case "always" -> false;
                    case "denial" -> true;
                    default -> throw error(v, "headers-on", "must be always or denial"
                            + Suggest.didYouMean(v.value, List.of("always", "denial")));
                };
            }
            boolean expose = (v = values.get("expose-headers")) != null && booleanValue(v, "expose-headers");
            Raw degraded = values.get("degraded-header");
            if (degraded == null || degraded.value.isEmpty()) {
                return new HeaderOptions(style, onDenial, expose, null);
            }
            HeaderStyle s = style;
            boolean d = onDenial;
            return call(degraded, "degraded-header", degraded.value,
                    () -> new HeaderOptions(s, d, expose, degraded.value));
        }

        /** @return the denial body the settings ask for, or {@code null} for the default */
        private DenialBody denialBody() {
            Raw body = values.get("denial-body");
            Raw type = values.get("denial-content-type");
            Raw problem = values.get("problem-type");
            if (body != null) {
                if (problem != null) {
                    throw error(problem, "problem-type", "cannot be combined with denial-body, which replaces the problem document");
                }
                String ct = type == null ? "text/plain; charset=utf-8" : type.value;
                return call(type == null ? body : type, "denial-content-type", ct, () -> DenialBody.of(ct, body.value));
            }
            if (type != null) {
                throw error(type, "denial-content-type", "needs denial-body (the problem document is always "
                        + ProblemBody.CONTENT_TYPE + ")");
            }
            return problem == null ? null
                    : call(problem, "problem-type", problem.value, () -> ProblemBody.withType(problem.value));
        }

        /**
         * Refuses settings of the in-memory store when the adapter found a store of its own: they
         * would configure nothing.
         */
        void requireNoRegistrySettings(String storeSource, Store store) {
            for (String name : List.of("max-keys", "memory-budget", "shards")) {
                Raw v = values.get(name);
                if (v != null) {
                    throw error(v, name, "configures the in-memory store, but " + storeSource
                            + " holds a store of its own (" + store + "); remove " + name);
                }
            }
        }

        /**
         * Adds {@code p}, unless its name is taken. A policy of the {@code config} file ({@code file})
         * is replaced, in its place, by one of the same name from the other settings (init-params,
         * Spring properties), as the other settings override the file's; two definitions from
         * the same side are an error.
         */
        private static void addUnique(List<Policy> policies, List<String> origins, Policy p, String source, int line,
                String file) {
            for (int i = 0; i < policies.size(); i++) {
                if (policies.get(i).name().equals(p.name())) {
                    if (file != null && origins.get(i).equals(file) && !source.equals(file)) {
                        policies.set(i, p);
                        origins.set(i, source);
                        return;
                    }
                    throw new ConfigException(source, line, p.name(), "name", p.name(),
                            "policy names must be unique but '" + p.name() + "' is also defined in " + origins.get(i), null);
                }
            }
            policies.add(p);
            origins.add(source);
        }

        private static ConfigException error(Raw v, String name, String reason) {
            return new ConfigException(v.source, v.line, null, name, v.value, name + " " + reason, null);
        }

        private static <T> T call(Raw v, String name, String value, java.util.function.Supplier<T> step) {
            return new Line(v.source, v.line, null).call(name, value, step);
        }

        /** A whole number of ASCII digits, possibly negative (for the builder to refuse), at most {@code max}. */
        private static int intValue(Raw v, String name, int max) {
            String digits = v.value.startsWith("-") ? v.value.substring(1) : v.value;
            for (int i = 0; i < digits.length(); i++) {
                char c = digits.charAt(i);
                if (Character.isDigit(c) && (c < '0' || c > '9')) {
                    throw error(v, name, "must be written with the ASCII digits 0-9, but '" + c + "' ("
                            + String.format("U+%04X", (int) c) + ") is not one");
                }
            }
            if (!digits.matches("[0-9]+")) {
                throw error(v, name, "must be a whole number, e.g. " + switch (name) {
                    case "ipv6-prefix" -> "64";
                    case "max-key-length" -> "128";
                    case "shards" -> "16";
                    case "top-clients" -> "20";
                    default -> "1000000";
                });
            }
            if (digits.length() > 9 || Integer.parseInt(digits) > max) {
                throw error(v, name, v.value.startsWith("-") ? "must be a positive whole number, at most " + max
                        : "is too large: at most " + max);
            }
            return Integer.parseInt(v.value);
        }

        /** A size in bytes: digits and an optional binary multiple, {@code k}, {@code m} or {@code g}. */
        private static long byteSize(Raw v, String name) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,13})([kKmMgG]?)")
                    .matcher(v.value);
            if (!m.matches()) {
                throw error(v, name, "must be a whole number of bytes, optionally followed by k, m or g"
                        + " (as in 256m)");
            }
            int shift = switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
                case "k" -> 10;
                case "m" -> 20;
                case "g" -> 30;
                default -> 0;
            };
            long n = Long.parseLong(m.group(1));
            if (n > Long.MAX_VALUE >> shift) {
                throw error(v, name, "is too large (at most " + (Long.MAX_VALUE >> 30) + "g)");
            }
            return n << shift;
        }

        private static boolean booleanValue(Raw v, String name) {
            return switch (v.value) {
                case "true" -> true;
                case "false" -> false;
                default -> throw error(v, name, "must be true or false" + Suggest.didYouMean(v.value, List.of("true", "false")));
            };
        }

        private static String read(String location) throws IOException {
            if (location.startsWith("classpath:")) {
                String path = location.substring("classpath:".length());
                while (path.startsWith("/")) {
                    path = path.substring(1);
                }
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                if (loader == null) {
                    loader = SluiceConfig.class.getClassLoader();
                }
                InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(path) : loader.getResourceAsStream(path);
                if (in == null) {
                    throw new IOException("no resource '" + path + "' on the class path");
                }
                try (in) {
                    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
            String file = location.startsWith("file:") ? location.substring("file:".length()) : location;
            return Files.readString(Path.of(file), StandardCharsets.UTF_8);
        }
    }

}
