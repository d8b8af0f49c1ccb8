package io.github.sluice.http;

import io.github.sluice.core.Clock;
import io.github.sluice.key.ClientAddress;
import io.github.sluice.key.Keys;
import io.github.sluice.policy.Policy;
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
 * allocates its {@link Verdict} and, per applied policy, one entry and its
 * {@link io.github.sluice.core.MutableDecision}; there is no array, and the entries are the chain
 * given to {@link Store#acquireAll} as they are. Resolvers allocate the key strings they build:
 * {@code ip} returns a direct IPv4 peer's own string, {@code global}, {@code constant} and
 * {@code principal} return existing strings, {@code header} allocates only to trim whitespace, a
 * fallback chain allocates its tagged key. Headers are formatted only when
 * {@link Verdict#writeHeaders} is called: {@code RateLimit-Policy} is formatted once per set of
 * applied policies and reused, so the {@code RateLimit} value is the only string an allowed
 * request allocates. No lock is taken; the store's acquisitions are lock-free.
 *
 * <p>Thread-safe. {@link #close()} closes the store if the enforcer created it.
 */
public final class Enforcer implements AutoCloseable {

    private final Policy[] policies;
    private final KeySpace[] spaces;
    /** Every configured policy, as {@link #enforce(RequestView)} applies them. */
    private final PolicyGroup all;
    private final Map<String, Integer> byName;
    private final Store store;
    private final boolean ownsStore;
    private final HeaderOptions headers;
    private final DenialBody denialBody;
    private final EnforcementListener listener;
    private final ClientAddress addresses;
    private final int maxKeyLength;

    private Enforcer(Builder b) {
        this.policies = b.policies.toArray(new Policy[0]);
        this.listener = b.listener;
        if (b.store != null) {
            this.store = b.store;
            this.ownsStore = false;
        } else {
            this.store = ShardedRegistry.builder().clock(b.clock).listener(b.listener)
                    .maxKeyLength(b.maxKeyLength).build();
            this.ownsStore = true;
        }
        this.spaces = new KeySpace[policies.length];
        this.byName = new HashMap<>();
        for (int i = 0; i < policies.length; i++) {
            spaces[i] = store.keySpace(policies[i].name(), policies[i].algorithm());
            byName.put(policies[i].name(), i);
        }
        this.headers = b.headers;
        this.all = new PolicyGroup(this, policies, spaces, 0, new RateLimitHeaders.Plan(headers));
        this.denialBody = b.denialBody;
        this.addresses = b.addresses;
        this.maxKeyLength = b.maxKeyLength;
    }

    /** @return a builder with the defaults documented on its setters */
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
        for (Enforcement e : all.members) {
            if (e.policy.match().matches(method, path)) {
                v = add(v, request, e);
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
        if (selection.group.enforcer != this) {
            throw new IllegalArgumentException(selection + " was not selected from this enforcer");
        }
        Verdict v = null;
        for (Enforcement e : selection.group.members) {
            v = add(v, request, e);
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
        Policy[] chosen = new Policy[idx.length];
        KeySpace[] chosenSpaces = new KeySpace[idx.length];
        for (int k = 0; k < idx.length; k++) {
            chosen[k] = policies[idx[k]];
            chosenSpaces[k] = spaces[idx[k]];
        }
        return new PolicySet(new PolicyGroup(this, chosen, chosenSpaces, cost, all.plan), idx, cost, ordered);
    }

    private Verdict add(Verdict v, RequestView request, Enforcement e) {
        Policy p = e.policy;
        String key = Keys.bound(p.key().resolve(request), maxKeyLength);
        if (key == null || (!p.allow().isEmpty() && p.allow().allows(key, request, addresses))) {
            return v;
        }
        if (v == null) {
            v = new Verdict();
        }
        v.add(e, key);
        return v;
    }

    private Verdict decide(Verdict v) {
        return v == null ? Verdict.NONE : v.decide(store, listener);
    }

    /** @return the policies, in configuration order */
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

    /** @return the resolver of client addresses used by allow-lists */
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

    /** Builds an {@link Enforcer}. Not thread-safe. */
    public static final class Builder {
        private final List<Policy> policies = new ArrayList<>();
        private Store store;
        private Clock clock = Clock.system();
        private HeaderOptions headers = HeaderOptions.DEFAULT;
        private DenialBody denialBody = ProblemBody.standard();
        private EnforcementListener listener = new LoggingListener();
        private ClientAddress addresses = ClientAddress.DIRECT;
        private int maxKeyLength = Keys.DEFAULT_MAX_LENGTH;

        private Builder() {
        }

        /**
         * Adds a policy.
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
         * Sets where state lives. Default: a new {@link ShardedRegistry} on {@link #clock}, told of
         * evictions through the {@link #listener}, closed with the enforcer.
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
         * Sets the clock of the default store. Ignored when a store is given.
         *
         * @param clock the clock
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

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
         * Sets who is told of decisions. Default a {@link LoggingListener}.
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
         * Sets how allow-lists find the client's address. Default {@link ClientAddress#DIRECT}.
         *
         * @param addresses the resolver
         * @return this builder
         * @throws NullPointerException if null
         */
        public Builder clientAddress(ClientAddress addresses) {
            this.addresses = Objects.requireNonNull(addresses, "addresses");
            return this;
        }

        /**
         * Sets the bound on key length; longer keys are hashed ({@link Keys}). Default 128.
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

        /**
         * @return the enforcer
         * @throws IllegalArgumentException if two policies share a name, or the store refuses a policy
         */
        public Enforcer build() {
            List<String> seen = new ArrayList<>();
            for (Policy p : policies) {
                if (seen.contains(p.name())) {
                    throw new IllegalArgumentException("policy name '" + p.name() + "' is used twice");
                }
                seen.add(p.name());
            }
            return new Enforcer(this);
        }
    }
}
