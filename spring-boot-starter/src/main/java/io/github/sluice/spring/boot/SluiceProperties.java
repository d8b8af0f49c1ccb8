package io.github.sluice.spring.boot;

import io.github.sluice.config.SluiceConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Sluice's settings under {@code sluice.*}: every setting of the servlet filter (see
 * {@code docs/configuration.md} section 4), named as there, plus the filter's registration and
 * the Redis store.
 *
 * <pre>
 * sluice:
 *   policies:
 *     per-ip: token-bucket 100/1m key=ip
 *     api: token-bucket key=header:X-Api-Key plan=bean:planOf default-plan=free override=bean:contractOf
 *   plans:
 *     api:
 *       free: 100/1m
 *       pro: 1000/1m
 *       internal: unlimited
 *   trusted-proxies: 10.0.0.0/8
 * </pre>
 *
 * <p>A property that is unknown, or that configures nothing (its part is off or replaced), fails
 * the start-up naming it ({@link SluiceSettingsAutoConfiguration}).
 *
 * <p>Values are kept as written and checked at start-up by {@link SluiceConfig#fromSettings},
 * which checks init-params too: the same rules and messages, each naming the property (for
 * example {@code property 'sluice.policies.per-ip': burst='0': burst must be >= 1 but was 0}).
 * An empty value counts as not set.
 *
 * <p>Not thread-safe: Boot binds it once at start-up.
 */
@ConfigurationProperties(prefix = SluiceProperties.PREFIX)
public class SluiceProperties {

    /** The prefix of every Sluice property. */
    public static final String PREFIX = "sluice";

    /**
     * Whether Sluice is configured when policies are given; false turns the auto-configuration off,
     * and the other sluice.* properties are then ignored with one warning.
     */
    private boolean enabled = true;

    /**
     * The policies, by name, in the policy language, e.g. per-ip: token-bucket 100/1m key=ip.
     * Applied in the order written. Sluice is configured when at least one is set, or config names
     * a file, or the application defines an Enforcer bean.
     */
    private Map<String, String> policies = new LinkedHashMap<>();

    /**
     * The plan tables, by policy name: each plan's name and limit (100/1m, unlimited, blocked), in
     * the order written; the same as plans=free:100/1m,... on the policy, which then names its
     * plan= and default-plan=.
     */
    private Map<String, Map<String, String>> plans = new LinkedHashMap<>();

    /**
     * A properties file of further settings and policy.NAME lines, read first:
     * classpath:sluice.properties or a path. The sluice.* properties override its settings. Alone,
     * it turns Sluice on.
     */
    private String config;

    /** Rate-limit header style: draft, draft-06, x-ratelimit or none. Default draft. */
    private String headers;

    /** When rate-limit headers are written: always, or only on a denial. Default always. */
    private String headersOn;

    /**
     * Whether to list the rate-limit headers in Access-Control-Expose-Headers, so that browser
     * scripts can read them cross-origin: true or false. Default false.
     */
    private String exposeHeaders;

    /** A response header set when a policy decided without its store (degraded); none by default. */
    private String degradedHeader;

    /**
     * Proxies whose forwarding header is believed, as CIDRs or addresses (a list, or comma- or
     * space-separated); none by default, so the key ip is the peer address.
     */
    private List<String> trustedProxies = new ArrayList<>();

    /** The forwarding header read behind trusted proxies: x-forwarded-for or forwarded. Default x-forwarded-for. */
    private String forwardedHeader;

    /** The prefix length, 1..128, IPv6 client addresses are grouped by. Default 64. */
    private String ipv6Prefix;

    /** true makes every policy dry-run: decisions are reported, nothing is refused. Default false. */
    private String dryRun;

    /**
     * The type URI of the problem document (RFC 9457) of a denial, for every status. Default the
     * draft's quota-exceeded type for 429, temporary-reduced-capacity for 503.
     */
    private String problemType;

    /** A fixed denial body replacing the problem document; none by default. */
    private String denialBody;

    /** The content type of denial-body. Default text/plain; charset=utf-8. */
    private String denialContentType;

    /** Keys longer than this many characters, 40..4096, are hashed. Default 128. */
    private String maxKeyLength;

    /**
     * The in-memory store's bound on keys per policy, 1..1000000000, checked against memory-budget.
     * Default each policy's share of the budget, at most 1000000.
     */
    private String maxKeys;

    /**
     * The most heap all in-memory keys may take at worst: bytes, or with k, m or g (binary
     * multiples). Default 256m.
     */
    private String memoryBudget;

    /** How many threads can add keys to one policy at once, a power of two. Default 4 per CPU, at least 16. */
    private String shards;

    /** Where decisions are reported: log (System.Logger io.github.sluice) or none. Default log. */
    private String listener;

    /**
     * Methods no policy applies to unless its match names them, comma-separated; empty for none.
     * Default OPTIONS (CORS preflights do not spend the client's quota).
     */
    private String exemptMethods;

    /**
     * Whether edits of the config file are applied while running (true) or it is read once
     * (false). Default true when config is a file path; a classpath: resource is never watched.
     */
    private String configWatch;

    /** How often the watched config file is read, 100ms..1h. Default 1s. */
    private String configWatchInterval;

    /**
     * What each key of a changed policy keeps when the config file changes: keep-consumed,
     * keep-remaining, proportional or reset. Default keep-consumed.
     */
    private String configReload;

    /**
     * true: the config file defines no policy on purpose, so the watch applies a version of it
     * that has none (otherwise such a version, which may be a file cut by a write, is refused).
     * An error if the file defines a policy, or if config is not set. Usually written in the
     * file itself. Default false.
     */
    private String noPolicies;

    /**
     * Heavy hitters kept per policy: the clients each policy refused most, over the last 1 to 15
     * minutes (a Space-Saving summary of this many counters per minute), shown by the sluicetop
     * actuator endpoint. 0 to 1000; 0 keeps none. Default 20.
     */
    private String topClients;

    /** true: also keep the clients each policy admitted most (costs on every admission). Default false. */
    private String topClientsAdmitted;

    /** The servlet filter's registration. */
    private final Filter filter = new Filter();

    /** The Redis store. */
    private final Redis redis = new Redis();

    /**
     * The settings in {@link SluiceConfig}'s names: {@code policy.<name>} for each policy, then
     * every other setting that is set.
     *
     * @return a new map, in order
     */
    public Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        for (String name : plans.keySet()) {
            if (!policies.containsKey(name)) {
                throw new IllegalArgumentException("property '" + PREFIX + ".plans." + name + "' is the plan table of a"
                        + " policy, but sluice.policies." + name + " is not set; known policies: " + policies.keySet());
            }
        }
        policies.forEach((name, spec) -> s.put(SluiceConfig.POLICY_PREFIX + name, withPlans(spec, plans.get(name))));
        put(s, "config", config);
        put(s, "headers", headers);
        put(s, "headers-on", headersOn);
        put(s, "expose-headers", exposeHeaders);
        put(s, "degraded-header", degradedHeader);
        put(s, "trusted-proxies", String.join(",", trustedProxies));
        put(s, "forwarded-header", forwardedHeader);
        put(s, "ipv6-prefix", ipv6Prefix);
        put(s, "dry-run", dryRun);
        put(s, "problem-type", problemType);
        put(s, "denial-body", denialBody);
        put(s, "denial-content-type", denialContentType);
        put(s, "max-key-length", maxKeyLength);
        put(s, "max-keys", maxKeys);
        put(s, "memory-budget", memoryBudget);
        put(s, "shards", shards);
        put(s, "listener", listener);
        if (exemptMethods != null) {
            s.put("exempt-methods", exemptMethods); // empty means none: kept
        }
        put(s, "config-watch", configWatch);
        put(s, "config-watch-interval", configWatchInterval);
        put(s, "config-reload", configReload);
        put(s, "no-policies", noPolicies);
        put(s, "top-clients", topClients);
        put(s, "top-clients-admitted", topClientsAdmitted);
        return s;
    }

    /**
     * The property a setting of {@link #settings()} was bound from, for messages.
     *
     * @param setting a setting name, e.g. {@code policy.per-ip} or {@code max-keys}
     * @return e.g. {@code property 'sluice.policies.per-ip'}
     */
    public static String source(String setting) {
        String property = setting.startsWith(SluiceConfig.POLICY_PREFIX)
                ? "policies." + setting.substring(SluiceConfig.POLICY_PREFIX.length()) : setting;
        return "property '" + PREFIX + "." + property + "'";
    }

    /** The policy with its YAML plan table as {@code plans=name:limit,...}. */
    private static String withPlans(String spec, Map<String, String> table) {
        if (table == null || table.isEmpty()) {
            return spec;
        }
        StringBuilder b = new StringBuilder(spec == null ? "" : spec.strip()).append(" plans=");
        boolean first = true;
        for (Map.Entry<String, String> e : table.entrySet()) {
            b.append(first ? "" : ",").append(e.getKey()).append(':').append(e.getValue() == null ? "" : e.getValue().strip());
            first = false;
        }
        return b.toString();
    }

    private static void put(Map<String, String> s, String name, String value) {
        if (value != null && !value.isBlank()) {
            s.put(name, value);
        }
    }

    /** @return whether Sluice is configured when policies are set */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled {@code false} to turn the auto-configuration off */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the policies by name, in the policy language */
    public Map<String, String> getPolicies() {
        return policies;
    }

    /** @param policies the policies by name */
    public void setPolicies(Map<String, String> policies) {
        this.policies = new LinkedHashMap<>(policies);
    }

    /** @return the plan tables by policy name: plan name to limit */
    public Map<String, Map<String, String>> getPlans() {
        return plans;
    }

    /** @param plans the plan tables by policy name */
    public void setPlans(Map<String, Map<String, String>> plans) {
        this.plans = new LinkedHashMap<>(plans);
    }

    /** @return the properties file read first, or {@code null} */
    public String getConfig() {
        return config;
    }

    /** @param config a properties file location */
    public void setConfig(String config) {
        this.config = config;
    }

    /** @return the header style as written, or {@code null} */
    public String getHeaders() {
        return headers;
    }

    /** @param headers the header style */
    public void setHeaders(String headers) {
        this.headers = headers;
    }

    /** @return when headers are written, or {@code null} */
    public String getHeadersOn() {
        return headersOn;
    }

    /** @param headersOn always or denial */
    public void setHeadersOn(String headersOn) {
        this.headersOn = headersOn;
    }

    /** @return whether headers are exposed to scripts, as written, or {@code null} */
    public String getExposeHeaders() {
        return exposeHeaders;
    }

    /** @param exposeHeaders true or false */
    public void setExposeHeaders(String exposeHeaders) {
        this.exposeHeaders = exposeHeaders;
    }

    /** @return the degraded header's name, or {@code null} */
    public String getDegradedHeader() {
        return degradedHeader;
    }

    /** @param degradedHeader a header name */
    public void setDegradedHeader(String degradedHeader) {
        this.degradedHeader = degradedHeader;
    }

    /** @return the trusted proxies as written */
    public List<String> getTrustedProxies() {
        return trustedProxies;
    }

    /** @param trustedProxies CIDRs or addresses */
    public void setTrustedProxies(List<String> trustedProxies) {
        this.trustedProxies = new ArrayList<>(trustedProxies);
    }

    /** @return the forwarding header, or {@code null} */
    public String getForwardedHeader() {
        return forwardedHeader;
    }

    /** @param forwardedHeader x-forwarded-for or forwarded */
    public void setForwardedHeader(String forwardedHeader) {
        this.forwardedHeader = forwardedHeader;
    }

    /** @return the IPv6 prefix as written, or {@code null} */
    public String getIpv6Prefix() {
        return ipv6Prefix;
    }

    /** @param ipv6Prefix 1..128 */
    public void setIpv6Prefix(String ipv6Prefix) {
        this.ipv6Prefix = ipv6Prefix;
    }

    /** @return dry-run as written, or {@code null} */
    public String getDryRun() {
        return dryRun;
    }

    /** @param dryRun true or false */
    public void setDryRun(String dryRun) {
        this.dryRun = dryRun;
    }

    /** @return the problem type URI, or {@code null} */
    public String getProblemType() {
        return problemType;
    }

    /** @param problemType a URI */
    public void setProblemType(String problemType) {
        this.problemType = problemType;
    }

    /** @return the fixed denial body, or {@code null} */
    public String getDenialBody() {
        return denialBody;
    }

    /** @param denialBody a fixed body */
    public void setDenialBody(String denialBody) {
        this.denialBody = denialBody;
    }

    /** @return the fixed body's content type, or {@code null} */
    public String getDenialContentType() {
        return denialContentType;
    }

    /** @param denialContentType a content type */
    public void setDenialContentType(String denialContentType) {
        this.denialContentType = denialContentType;
    }

    /** @return the key length bound as written, or {@code null} */
    public String getMaxKeyLength() {
        return maxKeyLength;
    }

    /** @param maxKeyLength 40..4096 */
    public void setMaxKeyLength(String maxKeyLength) {
        this.maxKeyLength = maxKeyLength;
    }

    /** @return the keys per policy as written, or {@code null} */
    public String getMaxKeys() {
        return maxKeys;
    }

    /** @param maxKeys 1..1000000000 */
    public void setMaxKeys(String maxKeys) {
        this.maxKeys = maxKeys;
    }

    /** @return the memory budget as written, or {@code null} */
    public String getMemoryBudget() {
        return memoryBudget;
    }

    /** @param memoryBudget bytes, or with k, m or g */
    public void setMemoryBudget(String memoryBudget) {
        this.memoryBudget = memoryBudget;
    }

    /** @return the shards as written, or {@code null} */
    public String getShards() {
        return shards;
    }

    /** @param shards a power of two */
    public void setShards(String shards) {
        this.shards = shards;
    }

    /** @return the listener as written, or {@code null} */
    public String getListener() {
        return listener;
    }

    /** @param listener log or none */
    public void setListener(String listener) {
        this.listener = listener;
    }

    /** @return the exempt methods as written, or {@code null} */
    public String getExemptMethods() {
        return exemptMethods;
    }

    /** @param exemptMethods methods, comma-separated; empty for none */
    public void setExemptMethods(String exemptMethods) {
        this.exemptMethods = exemptMethods;
    }

    /** @return whether the config file is watched, as written, or {@code null} */
    public String getConfigWatch() {
        return configWatch;
    }

    /** @param configWatch true or false */
    public void setConfigWatch(String configWatch) {
        this.configWatch = configWatch;
    }

    /** @return the watch interval as written, or {@code null} */
    public String getConfigWatchInterval() {
        return configWatchInterval;
    }

    /** @param configWatchInterval a duration, 100ms..1h */
    public void setConfigWatchInterval(String configWatchInterval) {
        this.configWatchInterval = configWatchInterval;
    }

    /** @return the reload strategy as written, or {@code null} */
    public String getConfigReload() {
        return configReload;
    }

    /** @param configReload keep-consumed, keep-remaining, proportional or reset */
    public void setConfigReload(String configReload) {
        this.configReload = configReload;
    }

    /** @return whether the config file declares no policy on purpose, as written, or {@code null} */
    public String getNoPolicies() {
        return noPolicies;
    }

    /** @param noPolicies true or false */
    public void setNoPolicies(String noPolicies) {
        this.noPolicies = noPolicies;
    }

    /** @return heavy hitters kept per policy, as written, or {@code null} */
    public String getTopClients() {
        return topClients;
    }

    /** @param topClients 0 to 1000 */
    public void setTopClients(String topClients) {
        this.topClients = topClients;
    }

    /** @return whether the heavy hitters by admitted requests are kept, as written, or {@code null} */
    public String getTopClientsAdmitted() {
        return topClientsAdmitted;
    }

    /** @param topClientsAdmitted true or false */
    public void setTopClientsAdmitted(String topClientsAdmitted) {
        this.topClientsAdmitted = topClientsAdmitted;
    }

    /** @return the filter's registration */
    public Filter getFilter() {
        return filter;
    }

    /** @return the Redis store's settings */
    public Redis getRedis() {
        return redis;
    }

    /** The servlet filter's registration ({@code sluice.filter.*}). */
    public static class Filter {

        /**
         * The default order, -110: before Spring Security's filter chain, whose registration has
         * order -100 ({@code SecurityProperties.DEFAULT_FILTER_ORDER}).
         */
        public static final int DEFAULT_ORDER = -110;

        /**
         * Whether the filter is registered; false leaves only @RateLimited on Spring MVC handlers.
         */
        private boolean enabled = true;

        /**
         * The filter's order among the servlet filters. The default, -110, runs it before Spring
         * Security's filter chain (-100) so that floods are refused before authentication; set it
         * above -100 (e.g. 0) for policies keyed by principal.
         */
        private int order = DEFAULT_ORDER;

        /** The URL patterns the filter is mapped to. Default /*. */
        private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

        /** How shaped requests wait: async (free the container thread) or blocking. Default async. */
        private String shaping = "async";

        /** @return whether the filter is registered */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled {@code false} to register no filter */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the filter's order */
        public int getOrder() {
            return order;
        }

        /** @param order the filter's order; lower runs first */
        public void setOrder(int order) {
            this.order = order;
        }

        /** @return the URL patterns */
        public List<String> getUrlPatterns() {
            return urlPatterns;
        }

        /** @param urlPatterns the URL patterns */
        public void setUrlPatterns(List<String> urlPatterns) {
            this.urlPatterns = new ArrayList<>(urlPatterns);
        }

        /** @return the shaping mode as written */
        public String getShaping() {
            return shaping;
        }

        /** @param shaping async or blocking */
        public void setShaping(String shaping) {
            this.shaping = shaping;
        }
    }

    /** The Redis store ({@code sluice.redis.*}), used when {@code sluice-redis} is on the class path. */
    public static class Redis {

        /**
         * The Redis URI, e.g. redis://localhost:6379; when set (and sluice-redis is on the class
         * path) the policies keep their state in Redis, shared by every instance.
         */
        private String url;

        /** @return the Redis URI, or {@code null} */
        public String getUrl() {
            return url;
        }

        /** @param url a Redis URI */
        public void setUrl(String url) {
            this.url = url;
        }
    }
}
