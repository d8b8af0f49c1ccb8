package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.core.MutableDecision;
import io.github.sluice.core.Outcome;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.ForwardedHeader;
import io.github.sluice.key.KeyResolver;
import io.github.sluice.key.KeyResolvers;
import io.github.sluice.key.Keys;
import io.github.sluice.policy.Policy;
import io.github.sluice.policy.PolicyParser;
import io.github.sluice.request.RequestView;
import io.github.sluice.store.KeySpace;
import io.github.sluice.store.ShardedRegistry;
import io.github.sluice.store.Store;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Applies policies to requests: the one object an adapter calls.
 *
 * <h2>Per request</h2>
 * <ol>
 *   <li>Select the policies: those whose {@link io.github.sluice.policy.Match} fits the method and path
 *       ({@link #enforce(RequestView)}), or an explicit {@link PolicySet}
 *       ({@link #enforce(RequestView, PolicySet)}).
 *   <li>For each, resolve the key ({@code null}: the policy does not apply), bound its length,
 *       and skip the policy if its allow-list matches.
 *   <li>Acquire on every enforced policy <em>all or nothing</em> ({@link Store#acquireAll}): if
 *       one denies, the permits the others took are refunded, each with its admission's receipt,
 *       so that they go back to the window, slot, log entries or schedule they came from and to
 *       nothing that later requests own. Dry-run policies are then
 *       acquired on their own (peeked only, if an enforced one denied): they report but never
 *       deny, never delay, and never roll back the enforced ones.
 *   <li>Return a {@link Verdict}; tell the {@link EnforcementListener}.
 * </ol>
 *
 * <h2>Allocation</h2>
 * A request that no policy applies to allocates nothing (a shared verdict). Otherwise a request
 * allocates its {@link Verdict}, two arrays (keys and decisions) sized to the policies that may
 * apply, and one {@link MutableDecision} per applied policy; the verdict reads the enforcer's own
 * arrays of policies, key spaces and costs, and copies them (three more arrays) only when the
 * applied policies are not the configured ones in order (a policy skipped, a dry-run policy before
 * an enforced one, a selection by name, a cost override). Resolvers allocate the key strings they
 * build: {@code ip} returns a direct IPv4 peer's own string, {@code global}, {@code constant} and
 * {@code principal} return existing strings, {@code header} allocates only to trim whitespace,
 * a fallback chain allocates its tagged key. Headers are formatted only when
 * {@link Verdict#writeHeaders} is called, and those strings are the only other allocation on an
 * allowed request. No lock is taken; the store's acquisitions are lock-free.
 *
 * <p>Thread-safe. {@link #close()} closes the store if the enforcer created it.
 */
public final class Enforcer implements AutoCloseable {

    private final Policy[] policies;
    private final KeySpace[] spaces;
    private final long[] costs;
    private final Map<String, Integer> byName;
    private final Store store;
    private final boolean ownsStore;
    private final HeaderOptions headers;
    private final DenialBody denialBody;
    private final EnforcementListener listener;
    private final ClientAddress addresses;
    private final int maxKeyLength;

    private Enforcer(Builder b, List<Policy> applied, ClientAddress addresses, Store store, boolean ownsStore) {
        this.policies = applied.toArray(new Policy[0]);
        this.listener = b.listener;
        this.store = store;
        this.ownsStore = ownsStore;
        this.spaces = new KeySpace[policies.length];
        this.costs = new long[policies.length];
        this.byName = new HashMap<>();
        for (int i = 0; i < policies.length; i++) {
            spaces[i] = store.keySpace(policies[i].name(), policies[i].algorithm());
            costs[i] = policies[i].cost();
            byName.put(policies[i].name(), i);
        }
        this.headers = b.headers;
        this.denialBody = b.denialBody;
        this.addresses = addresses;
        this.maxKeyLength = b.maxKeyLength;
    }

    /**
     * Starts an enforcer: the one builder of Sluice's HTTP layer, in code, or filled from
     * init-params and properties files by {@code io.github.sluice.config.SluiceConfig}.
     *
     * @return a builder with the defaults documented on its setters
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Decides a request against the policies whose match fits its method and path.
     *
     * @param request the request
     * @return the verdict, never {@code null}
     * @throws NullPointerException if {@code request} is null
     */
    public Verdict enforce(RequestView request) {
        String method = request.method();
        String path = request.path();
        Verdict v = null;
        for (int i = 0; i < policies.length; i++) {
            if (policies[i].match().matches(method, path)) {
                v = add(v, request, i, policies[i].cost(), policies.length);
            }
        }
        return decide(v);
    }

    /**
     * Decides a request against policies selected by name, ignoring their match.
     *
     * @param request the request
     * @param selection policies and cost, from {@link #select}
     * @return the verdict, never {@code null}
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the selection comes from another enforcer
     */
    public Verdict enforce(RequestView request, PolicySet selection) {
        Objects.requireNonNull(request, "request");
        if (selection.owner != this) {
            throw new IllegalArgumentException(selection + " was not selected from this enforcer");
        }
        int[] idx = selection.indices;
        Verdict v = null;
        for (int i : idx) {
            v = add(v, request, i, selection.cost > 0 ? selection.cost : policies[i].cost(), idx.length);
        }
        return decide(v);
    }

    /**
     * Selects policies by name, each with its own cost.
     *
     * @param names policy names
     * @return the selection
     * @throws IllegalArgumentException if a name is unknown or repeated, or none is given
     */
    public PolicySet select(String... names) {
        return select(List.of(names), 0);
    }

    /**
     * Selects policies by name with a cost that replaces each policy's own.
     *
     * @param names policy names, at least one
     * @param cost permits per request for every selected policy, {@code >= 1}, or {@code 0} for
     *     each policy's own cost
     * @return the selection
     * @throws IllegalArgumentException if a name is unknown or repeated, none is given, the cost is
     *     negative, or it exceeds a selected policy's limit (no request could ever pass)
     */
    public PolicySet select(Collection<String> names, long cost) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a policy selection needs at least one policy name");
        }
        if (cost < 0) {
            throw new IllegalArgumentException("cost must be >= 0 but was " + cost);
        }
        int[] idx = new int[names.size()];
        List<String> ordered = new ArrayList<>(names);
        for (int k = 0; k < idx.length; k++) {
            String name = ordered.get(k);
            Integer i = byName.get(name);
            if (i == null) {
                throw new IllegalArgumentException("unknown policy '" + name + "'; known policies: " + byName.keySet());
            }
            if (ordered.subList(0, k).contains(name)) {
                throw new IllegalArgumentException("policy '" + name + "' is selected twice");
            }
            if (cost > policies[i].algorithm().limit()) {
                throw new IllegalArgumentException("cost must be <= the limit " + policies[i].algorithm().limit()
                        + " of policy '" + name + "' but was " + cost);
            }
            idx[k] = i;
        }
        return new PolicySet(this, idx, cost, ordered);
    }

    private Verdict add(Verdict v, RequestView request, int i, long cost, int capacity) {
        Policy p = policies[i];
        String key = Keys.bound(p.key().resolve(request), maxKeyLength);
        if (key == null || (!p.allow().isEmpty() && p.allow().allows(key, request, addresses))) {
            return v;
        }
        if (v == null) {
            v = new Verdict(this, capacity);
        }
        v.add(i, p, spaces[i], key, cost);
        return v;
    }

    private Verdict decide(Verdict v) {
        if (v == null) {
            return Verdict.NONE;
        }
        v.seal();
        int n = v.size();
        int denied = v.enforced == 0 ? -1
                : store.acquireAll(v.spaces, v.keys, v.costs, v.decisions, v.enforced);
        for (int i = v.enforced; i < n; i++) {
            // A dry-run policy never rolls back enforced ones; after a denial it only peeks.
            v.spaces[i].acquire(v.keys[i], denied >= 0 ? 0 : v.costs[i], v.decisions[i]);
        }
        conclude(v, denied);
        v.holdIfNeeded();
        notifyListener(v, denied);
        return v;
    }

    private static void conclude(Verdict v, int denied) {
        if (denied >= 0) {
            v.outcome = Outcome.DENIED;
            int binding = denied;
            for (int i = 0; i < v.enforced; i++) {
                MutableDecision d = v.decisions[i];
                if (d.outcome() == Outcome.DENIED
                        && d.retryAfterNanos() > v.decisions[binding].retryAfterNanos()) {
                    binding = i;
                }
            }
            v.binding = binding;
            MutableDecision d = v.decisions[binding];
            v.status = d.degraded() && d.denialStatus() != 0 ? d.denialStatus() : v.policies[binding].status();
            return;
        }
        long delay = 0;
        for (int i = 0; i < v.enforced; i++) {
            if (v.decisions[i].outcome() == Outcome.SHAPED) {
                delay = Math.max(delay, v.decisions[i].delayNanos());
            }
        }
        if (delay > 0) {
            v.outcome = Outcome.SHAPED;
            v.delayNanos = delay;
        }
        int from = v.enforced > 0 ? 0 : v.enforced;
        int to = v.enforced > 0 ? v.enforced : v.size();
        int binding = from;
        for (int i = from + 1; i < to; i++) {
            if (RateLimitHeaders.closer(v.decisions[i], v.decisions[binding])) {
                binding = i;
            }
        }
        v.binding = binding;
    }

    private void notifyListener(Verdict v, int denied) {
        if (listener == EnforcementListener.NONE) {
            return;
        }
        int n = v.size();
        for (int i = 0; i < n; i++) {
            MutableDecision d = v.decisions[i];
            if (denied >= 0 && (i >= v.enforced || d.outcome() != Outcome.DENIED)) {
                continue; // after a denial the others were given back or only peeked
            }
            try {
                switch (d.outcome()) {
                    case ALLOWED -> listener.allowed(v.policies[i], v.keys[i], d);
                    case SHAPED -> listener.shaped(v.policies[i], v.keys[i], d);
                    case DENIED -> listener.denied(v.policies[i], v.keys[i], d);
                }
            } catch (RuntimeException ignored) {
                // A listener must never change a decision; see EnforcementListener.
            }
        }
    }

    void release(Policy policy, KeySpace space, String key, long cost) {
        space.release(key, cost);
        try {
            listener.released(policy, key, cost);
        } catch (RuntimeException ignored) {
            // See EnforcementListener.
        }
    }

    /** The verdict reads these without copying them, and never writes them. */
    Policy[] policyArray() {
        return policies;
    }

    KeySpace[] spaceArray() {
        return spaces;
    }

    long[] costArray() {
        return costs;
    }

    /**
     * @return the policies as applied, in configuration order: with the enforcer's client-address
     *     settings behind their {@code ip} keys, and dry-run if the enforcer was
     */
    public List<Policy> policies() {
        return List.of(policies);
    }

    /** @return the store holding the policies' state */
    public Store store() {
        return store;
    }

    /** @return how headers are written */
    public HeaderOptions headerOptions() {
        return headers;
    }

    /** @return the renderer of denial bodies */
    public DenialBody denialBody() {
        return denialBody;
    }

    /** @return the listener */
    public EnforcementListener listener() {
        return listener;
    }

    /** @return the client-address settings behind {@code ip} keys and allow-lists */
    public ClientAddress clientAddress() {
        return addresses;
    }

    /** @return the bound on key length, in characters */
    public int maxKeyLength() {
        return maxKeyLength;
    }

    /** Closes the store if this enforcer created it. */
    @Override
    public void close() {
        if (ownsStore) {
            store.close();
        }
    }

    @Override
    public String toString() {
        return "Enforcer{policies=" + byName.keySet() + ", store=" + store + '}';
    }

    /**
     * Builds an {@link Enforcer}: the policies, where their state lives, how clients are
     * identified, and how responses look. A setting has the name of its init-param in
     * {@code docs/configuration.md}, in camel case ({@code trusted-proxies} is
     * {@link #trustedProxies}), except the header settings, which are one {@link HeaderOptions},
     * and the body settings, one {@link DenialBody}. A setter refuses a bad value at once;
     * {@link #build()} applies and checks the settings together, so the order of the calls never
     * matters.
     *
     * <pre>{@code
     * Enforcer enforcer = Enforcer.builder()
     *         .policies("per-ip = token-bucket 100/1m key=ip match=/api/*")
     *         .trustedProxies("10.0.0.0/8")
     *         .build();
     * }</pre>
     *
     * <p>Not thread-safe.
     */
    public static final class Builder {
        /** The largest {@link #maxKeys}: a billion keys per policy is tens of gigabytes, so a larger number is a slip. */
        private static final int MAX_KEYS = 1_000_000_000;

        private final List<Policy> policies = new ArrayList<>();
        private Store store;
        /** The default store, configured by the registry settings; built only if no store is given. */
        private final ShardedRegistry.Builder registry = ShardedRegistry.builder();
        /** The registry settings given, name to value, for the message if a store is given too. */
        private final Map<String, Object> registrySettings = new java.util.LinkedHashMap<>();
        private final ClientAddress.Builder addresses = ClientAddress.builder();
        private HeaderOptions headers = HeaderOptions.DEFAULT;
        private DenialBody denialBody = ProblemBody.standard();
        private EnforcementListener listener = new LoggingListener();
        private boolean dryRun;
        private int maxKeyLength = Keys.DEFAULT_MAX_LENGTH;

        private Builder() {
        }

        // ---- policies -------------------------------------------------------------------------

        /**
         * Adds a policy, applied after those added before it.
         *
         * @param policy the policy
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder policy(Policy policy) {
            policies.add(Objects.requireNonNull(policy, "policy"));
            return this;
        }

        /**
         * Adds policies, in order.
         *
         * @param policies the policies
         * @return this builder
         * @throws NullPointerException if an element is null
         */
        public Builder policies(Collection<Policy> policies) {
            policies.forEach(this::policy);
            return this;
        }

        /**
         * Adds policies written in the policy language, one per line, e.g.
         * {@code per-ip = token-bucket 100/1m key=ip match=/api/*} (see
         * {@link io.github.sluice.policy.PolicyParser}). The text is parsed now, so an error is
         * thrown here; its {@code ip} keys get the client-address settings at {@link #build()},
         * whether those are set before this call or after.
         *
         * @param text policy lines; blank lines and {@code #} comments are ignored
         * @return this builder
         * @throws NullPointerException if {@code text} is null
         * @throws io.github.sluice.policy.ConfigException naming the line, policy, parameter and
         *     value, if a line is invalid
         */
        public Builder policies(String text) {
            return policies(PolicyParser.parse(text, "policies"));
        }

        /**
         * Makes every policy dry-run: each is evaluated and reported (headers, listener) but never
         * blocks or delays. Default: each policy's own setting.
         *
         * @param dryRun {@code true} for dry-run everywhere
         * @return this builder
         */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        // ---- the client's address -------------------------------------------------------------

        /**
         * Adds reverse proxies whose forwarding header is believed: the client is the first address
         * not trusted, reading the header from the right. Used by every {@code ip} key
         * ({@link io.github.sluice.key.KeyResolvers#ip()}, {@code key=ip}) and by the networks of
         * allow-lists. Default: none, the TCP peer is the client.
         *
         * @param cidrs networks such as {@code 10.0.0.0/8}, {@code 2001:db8::/32} or single addresses
         * @return this builder
         * @throws NullPointerException if an element is null
         * @throws IllegalArgumentException if an element is not a network, or holds every IPv4 or
         *     every IPv6 address
         */
        public Builder trustedProxies(String... cidrs) {
            addresses.trustedProxies(cidrs);
            return this;
        }

        /**
         * Sets the header that the {@link #trustedProxies} write. Default
         * {@link ForwardedHeader#X_FORWARDED_FOR}.
         *
         * @param header the header
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder forwardedHeader(ForwardedHeader header) {
            addresses.header(header);
            return this;
        }

        /**
         * Sets how IPv6 clients are grouped for {@code ip} keys: by the network of this prefix
         * length. Default 64.
         *
         * @param bits 1..128 (128: one key per address)
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv6Prefix(int bits) {
            addresses.ipv6Prefix(bits);
            return this;
        }

        // ---- where state lives ----------------------------------------------------------------

        /**
         * Sets where state lives, e.g. a Redis store. Default: a new in-memory
         * {@link ShardedRegistry}, configured by {@link #clock}, {@link #maxKeys},
         * {@link #memoryBudget}, {@link #shards} and {@link #maxKeyLength}, told of evictions
         * through the {@link #listener}, and closed with the enforcer.
         *
         * @param store the store; the caller keeps ownership (the enforcer does not close it)
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder store(Store store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * Sets the clock of the default store. Default {@link Clock#system()}; tests pass a fake.
         * Not combined with {@link #store}, which has its own clock.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clock(Clock clock) {
            registry.clock(clock);
            registrySettings.put("clock", clock);
            return this;
        }

        /**
         * Sets the default store's bound on keys per policy, checked against the
         * {@link #memoryBudget} when the enforcer is built. Default: each policy's share of the
         * budget, at most 1,000,000. Not combined with {@link #store}.
         *
         * @param maxKeys between 1 and 1,000,000,000
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxKeys(int maxKeys) {
            if (maxKeys > MAX_KEYS) {
                throw new IllegalArgumentException("maxKeys must be at most " + MAX_KEYS + " but was " + maxKeys);
            }
            registry.maxKeys(maxKeys);
            registrySettings.put("maxKeys", maxKeys);
            return this;
        }

        /**
         * Sets the most heap that the default store's keys may take at worst (see
         * {@link ShardedRegistry}). Default 256 MiB. Not combined with {@link #store}.
         *
         * @param bytes {@code >= 1}
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder memoryBudget(long bytes) {
            registry.memoryBudget(bytes);
            registrySettings.put("memoryBudget", bytes);
            return this;
        }

        /**
         * Sets the default store's shards per policy. Default four per processor, at least 16. Not
         * combined with {@link #store}.
         *
         * @param shards a power of two between 1 and 65536
         * @return this builder
         * @throws IllegalArgumentException if not a power of two in range
         */
        public Builder shards(int shards) {
            registry.shards(shards);
            registrySettings.put("shards", shards);
            return this;
        }

        /**
         * Sets the bound on key length; longer keys are replaced by a digest ({@link Keys}), and
         * the default store counts keys this long in its memory budget. Default 128.
         *
         * @param maxKeyLength characters, 40..4096
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 40 || maxKeyLength > 4096) {
                throw new IllegalArgumentException("max-key-length must be between 40 and 4096 but was " + maxKeyLength);
            }
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        // ---- responses and events -------------------------------------------------------------

        /**
         * Sets how headers are written. Default {@link HeaderOptions#DEFAULT}.
         *
         * @param headers the options
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder headers(HeaderOptions headers) {
            this.headers = Objects.requireNonNull(headers, "headers");
            return this;
        }

        /**
         * Sets the renderer of denial bodies. Default {@link ProblemBody#standard()}.
         *
         * @param denialBody the renderer
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder denialBody(DenialBody denialBody) {
            this.denialBody = Objects.requireNonNull(denialBody, "denialBody");
            return this;
        }

        /**
         * Sets who is told of decisions and of the default store's evictions. Default a
         * {@link LoggingListener}.
         *
         * @param listener the listener ({@link EnforcementListener#NONE} for nobody)
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder listener(EnforcementListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Builds the enforcer: applies the client-address settings to every {@code ip} key (see
         * {@link io.github.sluice.key.KeyResolvers#withClientAddress}) and {@link #dryRun}, binds
         * every policy in the store, and creates the default store unless one was given.
         *
         * @return the enforcer
         * @throws IllegalArgumentException if two policies share a name; if a policy's {@code ip}
         *     key has client-address settings of its own that differ from this builder's; or if the
         *     store refuses a policy (the in-memory store: one whose keys do not fit the memory
         *     budget)
         * @throws IllegalStateException if a store was given together with settings of the default
         *     store ({@link #clock}, {@link #maxKeys}, {@link #memoryBudget}, {@link #shards})
         */
        public Enforcer build() {
            ClientAddress clientAddress = addresses.build();
            List<Policy> applied = new ArrayList<>();
            List<String> seen = new ArrayList<>();
            for (Policy p : policies) {
                if (seen.contains(p.name())) {
                    throw new IllegalArgumentException("policy name '" + p.name() + "' is used twice");
                }
                seen.add(p.name());
                applied.add(applied(p, clientAddress));
            }
            if (store != null) {
                if (!registrySettings.isEmpty()) {
                    List<String> given = new ArrayList<>();
                    registrySettings.forEach((name, value) -> given.add(name + "=" + value));
                    throw new IllegalStateException(String.join(", ", given)
                            + " configure the default in-memory store, but a store was given (" + store
                            + "); configure that store instead");
                }
                return new Enforcer(this, applied, clientAddress, store, false);
            }
            ShardedRegistry own = registry.maxKeyLength(maxKeyLength).listener(listener).build();
            try {
                return new Enforcer(this, applied, clientAddress, own, true);
            } catch (RuntimeException e) {
                own.close();
                throw e;
            }
        }

        /** The policy with the client-address settings behind its {@code ip} key, and dry-run if all are. */
        private Policy applied(Policy p, ClientAddress clientAddress) {
            KeyResolver key;
            try {
                key = KeyResolvers.withClientAddress(p.key(), clientAddress);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " (policy '" + p.name() + "')", e);
            }
            boolean dry = dryRun && !p.dryRun();
            return key == p.key() && !dry ? p : p.toBuilder().key(key).dryRun(p.dryRun() || dryRun).build();
        }
    }
}
